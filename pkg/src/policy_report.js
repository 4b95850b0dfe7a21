// A policy report from the core's packed form (src/wasm/packed_policy.rs): words and one
// string, turned into the report's objects in one pass; each sentence's text and each
// citation's marker are slices of the checked text itself.

// The problem start of a sentence without a problem.
const NONE = 0xffffffff;

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
    for (let c = 0; c < count; c++, i += 4) {
      const from = w[i + 1];
      const to = w[i + 2];
      citations.push({ sourceId: w[i], marker: text.slice(from, to), span: [from, to], valid: w[i + 3] === 1 });
    }
    const sentence = { span: [start, end], text: text.slice(start, end), citations, ok };
    if (problem !== NONE) sentence.problem = s.slice(problem, problemEnd);
    sentences.push(sentence);
  }
  return { policy: s.slice(w[2], w[3]), ok: w[0] === 1, sentences };
}
