// Opens a test page in a headless browser engine (Chromium, Firefox or WebKit) and waits for the
// result the page publishes on `window`. The drivers live in ./engines/, one per engine, each
// giving a page with `goto`, `evaluate`, `version` and `close`.
import { startServer } from "../../scripts/serve.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { within } from "./engines/processes.mjs";

export { launch } from "./engines/chromium.mjs";

export const ENGINES = ["chromium", "firefox", "webkit"];

/** The engine named by `--engine=NAME` on the command line (default: chromium). */
export function engineArg(argv = process.argv.slice(2)) {
  const engine = argv.find((a) => a.startsWith("--engine="))?.slice("--engine=".length) ?? "chromium";
  if (!ENGINES.includes(engine)) throw new Error(`unknown engine ${engine}; one of ${ENGINES.join(", ")}`);
  return engine;
}

// What the page exposes: its result, and the errors it recorded itself (tests/smoke/page-errors.js),
// since not every driver streams page errors.
const read = (name) => ({ value: window[name] ?? null, errors: window.__pageErrors ?? [] });

/**
 * Serves the repository, starts the fake provider, opens `path?provider=<its base>` in `engine`
 * and waits up to `timeout` ms for the page to set `window[name]`; resolves with that value, the
 * errors the page recorded, and the browser's version. Everything is shut down afterwards, and
 * a browser that stops answering fails the run instead of hanging it.
 */
export async function pageResult(path, name, timeout, engine = "chromium") {
  const { start } = await import(`./engines/${engine}.mjs`);
  const server = await startServer();
  const provider = await startFakeProvider();
  let browser = null;
  try {
    const starting = start(timeout);
    browser = await within(timeout, `${engine}: starting the browser`, starting).catch((e) => {
      starting.then((late) => late.close(), () => {});
      throw e;
    });
    const url = `http://127.0.0.1:${server.address().port}${path}?provider=${encodeURIComponent(provider.base)}`;
    await within(timeout, `${engine}: loading ${path}`, browser.goto(url));
    const deadline = Date.now() + timeout;
    for (;;) {
      const seen = await within(timeout, `${engine}: reading the page`, browser.evaluate(read, name));
      if (seen.value !== null) return { ...seen, version: browser.version };
      if (Date.now() > deadline) {
        throw new Error(
          `${engine}: ${path} set no window.${name} within ${timeout} ms; page errors: ${
            seen.errors.join("; ") || "none"
          }`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await within(10000, `${engine}: closing the browser`, browser?.close() ?? Promise.resolve()).catch((e) =>
      console.error(e.message)
    );
    server.close();
    provider.close();
  }
}
