// Gemini's grounding read apart from its stream: what an app gets when a library hands over
// `groundingMetadata` as it came (the AI SDK's provider metadata), read by the same core code
// as citeflow's own Gemini decoder. Runs on the full streaming module.
import { fullModule } from "./engine.js";
import { citeflowError, describe, noMoreArguments } from "./errors.js";

/** The most values (objects, arrays, their members) a grounding read from JS may hold. */
const MAX_VALUES = 200_000;

/**
 * The citations and sources of a Gemini answer's `groundingMetadata`: `text` is the answer's
 * text (its text parts joined, thought summaries excluded), whose UTF-8 byte offsets the
 * grounding's segments count; the citations' spans count UTF-16 code units of `text`.
 */
export function groundingCitations(text, groundingMetadata, ...more) {
  noMoreArguments([text, groundingMetadata, ...more], 2, "groundingCitations");
  if (typeof text !== "string") {
    throw citeflowError("INVALID_TEXT", `groundingCitations: \`text\` must be a string; got ${describe(text)}`);
  }
  let json;
  try {
    // A function is not provider data: refused here rather than dropped as JSON.stringify would.
    // And the walk is bounded: a sparse array of length 2^32 - 1 would be written out in full.
    let values = 0;
    json = JSON.stringify(groundingMetadata, (key, value) => {
      if (typeof value === "function") throw new TypeError(`a function at \`${key}\``);
      if (++values > MAX_VALUES) throw new RangeError(`more than ${MAX_VALUES} values`);
      return value;
    });
  } catch (e) {
    throw citeflowError(
      "INVALID_PROVIDER_DATA",
      `groundingCitations: \`groundingMetadata\` is not JSON data (${e?.message ?? e})`,
      e,
    );
  }
  if (json === undefined) {
    throw citeflowError(
      "INVALID_PROVIDER_DATA",
      `groundingCitations: \`groundingMetadata\` is not JSON data; got ${describe(groundingMetadata)}`,
    );
  }
  return JSON.parse(fullModule().groundingCitations(text, json));
}
