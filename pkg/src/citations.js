// Citation markers in whole texts (the streaming CitationParser is in citation_parser.js).
import * as core from "../gen/citeflow.js";
import { policyReport } from "./policy_report.js";
import { ready } from "./runtime.js";

export function parseCitations(text, options) {
  ready();
  return core.parseCitations(text, options);
}

export function deduplicateAdjacentCites(text, options) {
  ready();
  return core.deduplicateAdjacentCites(text, options);
}

export function checkPolicy(text, options) {
  ready();
  return policyReport(text, core.checkPolicy(text, options, true));
}

export function citationGrammar(options) {
  ready();
  return core.citationGrammar(options);
}

export function splitSentences(text) {
  ready();
  return core.splitSentences(text);
}
