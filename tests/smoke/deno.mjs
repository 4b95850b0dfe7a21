import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check, checkStream, internalsOf, scenario, streamScenario } from "./scenario.mjs";

const provider = await startFakeProvider();
try {
  check(await scenario(lib, { providerBase: provider.base, internals: internalsOf(lib) }), `deno ${Deno.version.deno}`);
  checkStream(await streamScenario(streamLib), `deno ${Deno.version.deno}`);
} finally {
  provider.close();
}
