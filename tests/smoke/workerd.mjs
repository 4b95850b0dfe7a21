// Runs the smoke scenario inside workerd (Cloudflare's runtime) through miniflare.
import { startWorker } from "../support/workerd.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check, checkStream } from "./scenario.mjs";
import { checkResults } from "../portable/run.mjs";

const mf = startWorker([
  "tests/smoke/worker.mjs",
  "tests/smoke/scenario.mjs",
  "tests/portable/assert.mjs",
  "tests/portable/fast_path.cases.mjs",
  "tests/portable/odd_characters.mjs",
  "tests/portable/rng.mjs",
  "tests/portable/run.mjs",
]);
const provider = await startFakeProvider();
try {
  const res = await mf.dispatchFetch(`http://smoke.test/?provider=${encodeURIComponent(provider.base)}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`workerd answered ${res.status}: ${body}`);
  const { stream, fastPath, ...result } = JSON.parse(body);
  check(result, "workerd (miniflare)");
  checkStream(stream, "workerd (miniflare)");
  checkResults(fastPath, "workerd (miniflare), fast-path cases");
} finally {
  provider.close();
  await mf.dispose();
}
