// The portable cases (tests/portable/*.cases.mjs) in headless Chromium against the fake
// provider: real fetch, real ReadableStream, CORS. Exits non-zero when any case fails.
import { pageResult } from "../smoke/launch.mjs";

const { value: results, errors, version } = await pageResult("/tests/browser/cases.html", "__results", 60000);
let failed = 0;
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
console.log(`chromium ${version}: ${results.length - failed} of ${results.length} cases passed`);
process.exit(failed ? 1 : 0);
