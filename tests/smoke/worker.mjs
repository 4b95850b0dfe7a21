import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import * as internals from "./node_modules/citeflow/src/runtime.js";
import { scenario, streamScenario } from "./scenario.mjs";

export default {
  async fetch(request) {
    const providerBase = new URL(request.url).searchParams.get("provider");
    return Response.json({
      ...(await scenario(lib, { providerBase, internals })),
      stream: await streamScenario(streamLib),
    });
  },
};
