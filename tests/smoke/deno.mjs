import * as lib from "citeflow";
import * as internals from "../../pkg/src/runtime.js";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check, scenario } from "./scenario.mjs";

const provider = await startFakeProvider();
try {
  check(await scenario(lib, { providerBase: provider.base, internals }), `deno ${Deno.version.deno}`);
} finally {
  provider.close();
}
