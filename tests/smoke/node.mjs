// The smoke scenario in Node and in Bun (Makefile's test-runtimes runs this file in Node 20,
// Node 22 and Bun), with the package resolved as each runtime resolves it unconfigured (Bun
// has no "bun" condition in the exports map: it takes "node"). Then `require("citeflow")`, as
// CommonJS code loads the package (require(esm): Node 20.19+ and 22.12+, pkg/package.json's
// `engines`, and Bun): the same module instances as the import, not a second copy.
import { createRequire } from "node:module";
import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import * as cslLib from "citeflow/csl";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check, checkStream, internalsOf, scenario, streamScenario } from "./scenario.mjs";

const runtime = globalThis.Bun ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;

const provider = await startFakeProvider();
try {
  check(await scenario(lib, { providerBase: provider.base, internals: internalsOf(lib) }), runtime);
  checkStream(await streamScenario(streamLib), runtime);
} finally {
  provider.close();
}

const require = createRequire(import.meta.url);
for (
  const [name, imported, key] of [
    ["citeflow", lib, "parseCitations"],
    ["citeflow/stream", streamLib, "CitationParser"],
    ["citeflow/csl", cslLib, "renderReferences"],
  ]
) {
  const required = require(name);
  if (required[key] !== imported[key]) {
    throw new Error(`${runtime}: require("${name}").${key} is not the imported one (${typeof required[key]})`);
  }
}
console.log(`smoke ok: ${runtime}, require() of citeflow, citeflow/stream and citeflow/csl`);
