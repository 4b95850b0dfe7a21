// The package's internal state the hostile cases read (not part of the public API): the
// instances' replacement counts and a way to force a trap. Each entry's `init` carries it under
// a symbol (pkg/src/module.js), so these are the very instances the package uses, wherever its
// bundled entries are loaded from.
import init from "citeflow";
import initCsl, { loadStyle } from "citeflow/csl";

const INTERNALS = Symbol.for("citeflow.internals");
const { core, stream, full } = init[INTERNALS];
const { csl } = initCsl[INTERNALS];

export const internals = {
  instanceState: core.instanceState,
  forceTrapForTests: core.forceTrap,
  memoryBytes: core.memoryBytes,
  csl: () => ({ state: csl.instanceState, forceTrap: csl.forceTrap, loadStyle }),
  stream: () => ({ state: stream.instanceState, forceTrap: stream.forceTrap, memoryBytes: stream.memoryBytes }),
  full: () => ({ state: full.instanceState, forceTrap: full.forceTrap }),
  /** Each module's shadow stack pointer (core, streaming, full streaming, CSL), between calls. */
  stackPointers: () => [core.stackPointer(), stream.stackPointer(), full.stackPointer(), csl.stackPointer()],
};
