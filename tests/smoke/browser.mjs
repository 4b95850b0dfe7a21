// Runs the smoke scenario in a headless browser, with the package imported the way a page
// without a bundler does: an import map. `--engine=chromium|firefox|webkit` (default chromium).
import { engineArg, pageResult } from "./launch.mjs";
import { check, checkStream } from "./scenario.mjs";

const engine = engineArg();
const { value: out, errors, version } = await pageResult("/tests/smoke/browser.html", "__smoke", 20000, engine);
if (out.error) throw new Error(`${version}: ${out.error}`);
if (out.beforeInit !== "NOT_INITIALIZED") {
  throw new Error(`${version}: using the package before init() gave ${out.beforeInit}, expected NOT_INITIALIZED`);
}
if (errors.length) throw new Error(`${version} page errors: ${errors.join("; ")}`);
check(out.result, version);

// "citeflow/stream" alone fetches its own wasm module and no other.
const stream = await pageResult("/tests/smoke/stream.html", "__stream", 20000, engine);
if (stream.value.error) throw new Error(`${version} citeflow/stream: ${stream.value.error}`);
if (stream.value.beforeInit !== "NOT_INITIALIZED") {
  throw new Error(
    `${version}: citeflow/stream before init() gave ${stream.value.beforeInit}, expected NOT_INITIALIZED`,
  );
}
if (stream.errors.length) throw new Error(`${version} citeflow/stream page errors: ${stream.errors.join("; ")}`);
if (JSON.stringify(stream.value.wasm) !== JSON.stringify(["citeflow_stream_bg.wasm"])) {
  throw new Error(
    `${version}: citeflow/stream fetched ${JSON.stringify(stream.value.wasm)}, expected only citeflow_stream_bg.wasm`,
  );
}
checkStream(stream.value.result, version);
process.exit(0);
