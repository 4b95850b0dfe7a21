// Citation markers in whole texts (the streaming CitationParser is in citation_parser.js).
import * as core from "../gen/citeflow.js";
import { noMoreArguments } from "./errors.js";
import { citationList, policyReport } from "./packed.js";
import { ready } from "./runtime.js";

export function parseCitations(text, options, ...more) {
  noMoreArguments([text, options, ...more], 2, "parseCitations");
  ready();
  return citationList(text, core.parseCitations(text, options, true));
}

export function deduplicateAdjacentCites(text, options, ...more) {
  noMoreArguments([text, options, ...more], 2, "deduplicateAdjacentCites");
  ready();
  return applyEdits(text, core.deduplicateAdjacentCites(text, options, true));
}

/**
 * The text the core's edits make of `text` (`[words, string]`: per edit `start, end` in
 * `text`, and the replacement's range in `string`), or `edits` itself when it is the text: no
 * answer-sized string crosses back from wasm, and an unchanged text comes back as it was.
 */
function applyEdits(text, edits) {
  if (typeof edits === "string") return edits;
  const [w, s] = edits;
  if (w.length === 0) return text;
  const parts = [];
  let at = 0;
  for (let i = 0; i < w.length; i += 4) {
    parts.push(text.slice(at, w[i]), s.slice(w[i + 2], w[i + 3]));
    at = w[i + 1];
  }
  parts.push(text.slice(at));
  return parts.join("");
}

export function checkPolicy(text, options, ...more) {
  noMoreArguments([text, options, ...more], 2, "checkPolicy");
  ready();
  return policyReport(text, core.checkPolicy(text, options, true));
}

export function citationGrammar(options, ...more) {
  noMoreArguments([options, ...more], 1, "citationGrammar");
  ready();
  return core.citationGrammar(options);
}

export function splitSentences(text, ...more) {
  noMoreArguments([text, ...more], 1, "splitSentences");
  ready();
  return core.splitSentences(text);
}
