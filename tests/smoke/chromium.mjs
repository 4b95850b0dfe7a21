// Runs the smoke scenario in headless Chromium, with the package imported the way a page
// without a bundler does: an import map.
import { pageResult } from "./launch.mjs";
import { check } from "./scenario.mjs";

const { value: out, errors, version } = await pageResult("/tests/smoke/browser.html", "__smoke", 20000);
if (out.error) throw new Error(`chromium: ${out.error}`);
if (out.beforeInit !== "NOT_INITIALIZED") throw new Error(`chromium: using the package before init() gave ${out.beforeInit}, expected NOT_INITIALIZED`);
if (errors.length) throw new Error(`chromium page errors: ${errors.join("; ")}`);
check(out.result, `chromium ${version}`);
