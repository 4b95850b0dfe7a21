// The portable cases (tests/portable/*.cases.mjs) in headless Chromium against the fake
// provider: real fetch, real ReadableStream, CORS. Exits non-zero when any case fails.
import { startServer } from "../../scripts/serve.mjs";
import { launch } from "../smoke/launch.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";

const server = await startServer();
const provider = await startFakeProvider();
const browser = await launch();
let failed = 0;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/browser/cases.html?provider=${encodeURIComponent(provider.base)}`);
  const results = await page.waitForFunction(() => window.__results, null, { timeout: 60000 }).then((h) => h.jsonValue());
  for (const r of results) {
    if (r.ok) console.log(`ok   chromium ${r.suite}: ${r.name} (${r.ms.toFixed(0)} ms)`);
    else {
      failed++;
      console.log(`FAIL chromium ${r.suite}: ${r.name}\n${r.error}`);
    }
  }
  if (errors.length) {
    failed++;
    console.log(`page errors: ${errors.join("; ")}`);
  }
  console.log(`chromium ${browser.version()}: ${results.length - failed} of ${results.length} cases passed`);
} finally {
  await browser.close();
  server.close();
  provider.close();
}
process.exit(failed ? 1 : 0);
