import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { internalsOf, scenario, streamScenario } from "./scenario.mjs";
import { assert } from "../portable/assert.mjs";
import { fastPathCases } from "../portable/fast_path.cases.mjs";
import { runCases } from "../portable/run.mjs";

export default {
  async fetch(request) {
    const providerBase = new URL(request.url).searchParams.get("provider");
    return Response.json({
      ...(await scenario(lib, { providerBase, internals: internalsOf(lib) })),
      stream: await streamScenario(streamLib),
      fastPath: await runCases(fastPathCases, { lib, assert, internals: internalsOf(lib) }),
    });
  },
};
