// Runs the smoke scenario in headless Chromium, with the package imported the way a page
// without a bundler does: an import map.
import { startServer } from "../../scripts/serve.mjs";
import { launch } from "./launch.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check } from "./scenario.mjs";

const server = await startServer();
const provider = await startFakeProvider();
const browser = await launch();
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/smoke/browser.html?provider=${encodeURIComponent(provider.base)}`);
  const out = await page.waitForFunction(() => window.__smoke, null, { timeout: 20000 }).then((h) => h.jsonValue());
  if (out.error) throw new Error(`chromium: ${out.error}`);
  if (out.beforeInit !== "NOT_INITIALIZED") throw new Error(`chromium: using the package before init() gave ${out.beforeInit}, expected NOT_INITIALIZED`);
  if (errors.length) throw new Error(`chromium page errors: ${errors.join("; ")}`);
  check(out.result, `chromium ${browser.version()}`);
} finally {
  await browser.close();
  server.close();
  provider.close();
}
