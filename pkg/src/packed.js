// Whole-text results from the core's packed form (src/wasm/packed.rs): words (and one string),
// turned into their objects in one pass; each citation's marker and each sentence's text are
// slices of the text itself.

// The problem start of a sentence without a problem (src/abi.rs).
import { PACKED_NONE as NONE } from "./abi.js";

/** The citation of the four words at `i`: `sourceId, span start, span end, valid`. */
function citation(text, w, i) {
  const from = w[i + 1];
  const to = w[i + 2];
  return { sourceId: w[i], marker: text.slice(from, to), span: [from, to], valid: w[i + 3] === 1 };
}

/** The citations of `text` from `packed` (a Uint32Array), or `packed` itself when it is the list. */
export function citationList(text, packed) {
  if (!(packed instanceof Uint32Array)) return packed;
  const out = new Array(packed.length >>> 2);
  for (let i = 0, k = 0; i < packed.length; i += 4, k++) out[k] = citation(text, packed, i);
  return out;
}

/** The report of `text` from `packed` (`[words, string]`), or `packed` itself when it is the report. */
export function policyReport(text, packed) {
  if (!Array.isArray(packed)) return packed;
  const [w, s] = packed;
  const sentences = [];
  let i = 4;
  for (let n = w[1]; n > 0; n--) {
    const start = w[i];
    const end = w[i + 1];
    const ok = w[i + 2] === 1;
    const problem = w[i + 3];
    const problemEnd = w[i + 4];
    const count = w[i + 5];
    i += 6;
    const citations = [];
    for (let c = 0; c < count; c++, i += 4) citations.push(citation(text, w, i));
    const sentence = { span: [start, end], text: text.slice(start, end), citations, ok };
    if (problem !== NONE) sentence.problem = s.slice(problem, problemEnd);
    sentences.push(sentence);
  }
  return { policy: s.slice(w[2], w[3]), ok: w[0] === 1, sentences };
}
