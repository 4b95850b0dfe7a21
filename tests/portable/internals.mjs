// The package's internal state the hostile cases read (not part of the public API): the
// instances' replacement counts and a way to force a trap. Same module instances as the
// package's own (the entries import these files too).
import { forceTrapForTests, instanceState, memory } from "../../pkg/src/runtime.js";
import { cslInstanceState, forceCslTrapForTests, loadStyle } from "../../pkg/src/csl.js";
import { forceStreamTrapForTests, memory as streamMemory, streamInstanceState } from "../../pkg/src/stream_runtime.js";

export const internals = {
  instanceState,
  forceTrapForTests,
  memoryBytes: () => memory().buffer.byteLength,
  csl: () => ({ state: cslInstanceState, forceTrap: forceCslTrapForTests, loadStyle }),
  stream: () => ({
    state: streamInstanceState,
    forceTrap: forceStreamTrapForTests,
    memoryBytes: () => streamMemory().buffer.byteLength,
  }),
};
