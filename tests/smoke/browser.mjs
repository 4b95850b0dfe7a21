// Runs the smoke scenario in a headless browser, with the package imported the way a page
// without a bundler does: an import map. `--engine=chromium|firefox|webkit` (default chromium).
import { engineArg, pageResult } from "./launch.mjs";
import { check } from "./scenario.mjs";

const engine = engineArg();
const { value: out, errors, version } = await pageResult("/tests/smoke/browser.html", "__smoke", 20000, engine);
if (out.error) throw new Error(`${version}: ${out.error}`);
if (out.beforeInit !== "NOT_INITIALIZED") throw new Error(`${version}: using the package before init() gave ${out.beforeInit}, expected NOT_INITIALIZED`);
if (errors.length) throw new Error(`${version} page errors: ${errors.join("; ")}`);
check(out.result, version);
process.exit(0);
