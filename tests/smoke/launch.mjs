// Headless Chromium (Debian's package) through playwright-core, with the flags this
// machine's closed network needs.
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";

const ARGS = [
  "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ARGS });
}

/**
 * Serves the repository, starts the fake provider, opens `path?provider=<its base>` in
 * Chromium and waits for the page to set `window[name]`; resolves with that value, the page
 * errors seen, and the browser's version. Everything is shut down afterwards.
 */
export async function pageResult(path, name, timeout) {
  const server = await startServer();
  const provider = await startFakeProvider();
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}${path}?provider=${encodeURIComponent(provider.base)}`);
    const value = await page.waitForFunction((n) => window[n], name, { timeout }).then((h) => h.jsonValue());
    return { value, errors, version: browser.version() };
  } finally {
    await browser.close();
    server.close();
    provider.close();
  }
}
