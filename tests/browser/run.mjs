// The portable cases (tests/portable/*.cases.mjs) in a headless browser against the fake
// provider: real fetch, real ReadableStream, CORS. `--engine=chromium|firefox|webkit` (default
// chromium). Exits non-zero when any case fails.
import { engineArg, pageResult } from "../smoke/launch.mjs";

const engine = engineArg();
const { value: results, errors, version } = await pageResult("/tests/browser/cases.html", "__results", 60000, engine);
let failed = 0;
for (const r of results) {
  if (r.ok) console.log(`ok   ${engine} ${r.suite}: ${r.name} (${r.ms.toFixed(0)} ms)`);
  else {
    failed++;
    console.log(`FAIL ${engine} ${r.suite}: ${r.name}\n${r.error}`);
  }
}
if (errors.length) {
  failed++;
  console.log(`page errors: ${errors.join("; ")}`);
}
console.log(`${version}: ${results.length - failed} of ${results.length} cases passed`);
process.exit(failed ? 1 : 0);
