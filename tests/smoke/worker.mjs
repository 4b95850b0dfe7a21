import * as lib from "citeflow";
import { scenario } from "./scenario.mjs";

export default {
  async fetch() {
    return Response.json(await scenario(lib));
  },
};
