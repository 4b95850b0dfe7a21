import * as lib from "citeflow";
import { scenario } from "./scenario.mjs";

export default {
  async fetch(request) {
    const providerBase = new URL(request.url).searchParams.get("provider");
    return Response.json(await scenario(lib, { providerBase }));
  },
};
