// The one piece of the core's bracket-marker grammar the citation fast path reads itself: an
// opener, one to nine ASCII digits and the closer (`[3]`, `[12]`), in normal text. The core
// decides everything else (groups, ranges, footnotes, links, code, URLs). The rules copied
// here, each from src/cite/marker.rs (`read_enclosed`, `number`) and src/cite/scanner.rs
// (`MarkerScanner::marker`):
// - an opener, then ASCII digits (perhaps none), then perhaps the closer, at the end of the
//   text seen so far, is undecided: the next character decides;
// - a marker followed by `(` (a link) or `:` (a reference definition) is not a citation; by any
//   other character, it is: its id is the digits' value (leading zeros ignored);
// - an id is valid when it is at least 1 and at most the source count (when there is one).
// tests/portable/fast_path.cases.mjs holds the fast path to the core alone, push by push, for
// any split of marker-dense text, in every runtime.
import { citationEvent } from "./events.js";

// The core reads ids of any length; up to nine digits an id is a JS number and fits u32.
const MAX_DIGITS = 9;
export const OPENER = 0x5b; // [
const CLOSER = 0x5d; // ]
const LINK = 0x28; // (
const DEFINITION = 0x3a; // :

/** `markerAt`'s answer: the text from the opener to its end is a marker's start, undecided. */
export const UNDECIDED = -1;
/** `markerAt`'s answer: the core decides what the text at the opener is. */
export const NOT_SIMPLE = 0;

/**
 * What `text` holds at `at` (an opener): UNDECIDED, NOT_SIMPLE, or the end of a simple marker
 * that the character after it makes a citation.
 */
export function markerAt(text, at) {
  const n = text.length;
  let i = at + 1;
  while (i < n && i - at <= MAX_DIGITS) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    i++;
  }
  if (i === n) return UNDECIDED;
  if (i === at + 1 || text.charCodeAt(i) !== CLOSER) return NOT_SIMPLE;
  if (i === n - 1) return UNDECIDED;
  const next = text.charCodeAt(i + 1);
  return next === LINK || next === DEFINITION ? NOT_SIMPLE : i + 1;
}

/**
 * The `citation` event of the simple marker `text[start..end]` at `offset` in the answer
 * (UTF-16 units), as the core's step returns it; `sourceCount`: the stage's, or null.
 */
export function simpleCitation(text, start, end, offset, sourceCount) {
  const sourceId = Number(text.slice(start + 1, end - 1));
  const valid = sourceId >= 1 && (sourceCount === null || sourceId <= sourceCount);
  return citationEvent(sourceId, text.slice(start, end), offset, offset + end - start, valid);
}
