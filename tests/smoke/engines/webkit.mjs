// WebKit: WebKitGTK's MiniBrowser driven by WebKitWebDriver (Debian's webkit2gtk-driver),
// plain W3C WebDriver over HTTP, on a private Xvfb display (without one the session request
// never answers). Every request carries its own timeout.
import { freePort, spawnGroup, within } from "./processes.mjs";

const MINIBROWSER = process.env.MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** Starts Xvfb on a display it picks (-displayfd) and resolves with that display's name. */
async function startXvfb(timeout) {
  const xvfb = spawnGroup("Xvfb", ["-displayfd", "3", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  try {
    const number = await within(
      timeout,
      "Xvfb",
      new Promise((resolve, reject) => {
        let out = "";
        xvfb.child.stdio[3].on("data", (data) => {
          out += data;
          if (out.includes("\n")) resolve(out.trim());
        });
        xvfb.child.once("exit", (code) => reject(new Error(`Xvfb exited (${code}) before naming a display`)));
        xvfb.started.catch(reject);
      }),
    );
    return { display: `:${number}`, stop: xvfb.stop };
  } catch (e) {
    await xvfb.stop();
    throw e;
  }
}

/** One WebDriver command; resolves with the answer's `value`, throws the driver's error. */
async function command(base, method, path, body, timeout) {
  const response = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeout),
  }).catch((e) => {
    throw new Error(
      `WebDriver ${method} ${path}: ${e.name === "TimeoutError" ? `no answer within ${timeout} ms` : e.message}`,
    );
  });
  const { value } = await response.json();
  if (!response.ok) throw new Error(`WebDriver ${method} ${path}: ${value?.error}: ${value?.message}`);
  return value;
}

/** Polls the driver's /status until it is ready. */
async function waitReady(base, driver, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (driver.child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.child.exitCode})`);
    const status = await command(base, "GET", "/status", undefined, 1000).catch(() => null);
    if (status?.ready) return;
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver not ready within ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A browser with one page: `goto(url)`, `evaluate(fn, arg)`, `version`, `close()`. */
export async function start(timeout) {
  const stops = [];
  const close = async () => {
    while (stops.length) await stops.pop()().catch(() => {});
  };
  try {
    const xvfb = await startXvfb(timeout);
    stops.push(xvfb.stop);
    const port = await freePort();
    const driver = spawnGroup("WebKitWebDriver", [`--port=${port}`], {
      env: { ...process.env, DISPLAY: xvfb.display },
    });
    stops.push(driver.stop);
    await driver.started;
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base, driver, timeout);
    const session = await command(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: {
          timeouts: { pageLoad: timeout, script: timeout },
          "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
        },
      },
    }, timeout);
    const at = `/session/${session.sessionId}`;
    stops.push(() => command(base, "DELETE", at, undefined, 5000));
    const { browserName, browserVersion } = session.capabilities;
    return {
      version: `webkit (${browserName}) ${browserVersion}`,
      goto: (url) => command(base, "POST", `${at}/url`, { url }, timeout),
      evaluate: (fn, arg) =>
        command(base, "POST", `${at}/execute/sync`, { script: `return (${fn})(arguments[0]);`, args: [arg] }, timeout),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
