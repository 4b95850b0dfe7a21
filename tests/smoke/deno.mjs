import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check, checkStream, internalsOf, scenario, streamScenario } from "./scenario.mjs";
import { assert } from "../portable/assert.mjs";
import { fastPathCases } from "../portable/fast_path.cases.mjs";
import { checkResults, runCases } from "../portable/run.mjs";

const provider = await startFakeProvider();
try {
  check(await scenario(lib, { providerBase: provider.base, internals: internalsOf(lib) }), `deno ${Deno.version.deno}`);
  checkStream(await streamScenario(streamLib), `deno ${Deno.version.deno}`);
  const fastPath = await runCases(fastPathCases, { lib, assert, internals: internalsOf(lib) });
  checkResults(fastPath, `deno ${Deno.version.deno}, fast-path cases`);
} finally {
  provider.close();
}
