// Runs the smoke scenario in headless Chromium (Debian's) driven by playwright-core, with
// the package imported the way a page without a bundler does: an import map.
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";
import { check } from "./scenario.mjs";

export const CHROMIUM_ARGS = [
  "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

const server = await startServer();
const browser = await launch();
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/smoke/browser.html`);
  const out = await page.waitForFunction(() => window.__smoke, null, { timeout: 20000 }).then((h) => h.jsonValue());
  if (out.error) throw new Error(`chromium: ${out.error}`);
  if (out.beforeInit !== "NOT_INITIALIZED") throw new Error(`chromium: using the package before init() gave ${out.beforeInit}, expected NOT_INITIALIZED`);
  if (errors.length) throw new Error(`chromium page errors: ${errors.join("; ")}`);
  check(out.result, `chromium ${browser.version()}`);
} finally {
  await browser.close();
  server.close();
}
