import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { internalsOf, scenario, streamScenario } from "./scenario.mjs";

export default {
  async fetch(request) {
    const providerBase = new URL(request.url).searchParams.get("provider");
    return Response.json({
      ...(await scenario(lib, { providerBase, internals: internalsOf(lib) })),
      stream: await streamScenario(streamLib),
    });
  },
};
