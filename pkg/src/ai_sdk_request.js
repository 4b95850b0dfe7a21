// What the AI SDK's `streamText`/`generateText` take for a cited answer: Citeformer's
// instructions over the numbered sources (AI SDK 7 takes them as `instructions`; it refuses a
// system message among `messages`) and the conversation. No model or invoker is needed.
import * as core from "../gen/citeflow.js";
import { checkSources } from "./citeformer.js";
import { citeflowError, describe, knownFields, list, noMoreArguments } from "./errors.js";
import { ready } from "./runtime.js";

const WHAT = "aiSdkRequest's {prompt | messages, sources, policy, markerStyle, enforce}";

/**
 * `{instructions, messages}` for `streamText({model, ...aiSdkRequest({prompt, sources})})`:
 * the prompt as a user message (or `messages`, the conversation, as given), the sources
 * numbered in the instructions as Citeformer numbers them. Enforcement is by the prompt's rule
 * ("prompt", the default and the only one): a grammar, schema or tool is asked for by
 * Citeformer's invokers, not through the AI SDK.
 */
export function aiSdkRequest(args, ...more) {
  noMoreArguments([args, ...more], 1, "aiSdkRequest");
  const { prompt, messages, sources: given, ...plain } = knownFields(
    args,
    ["prompt", "messages", "sources", "policy", "markerStyle", "enforce"],
    "INVALID_OPTION",
    WHAT,
  );
  for (const [key, value] of Object.entries(plain)) {
    if (typeof value === "function") {
      throw citeflowError("INVALID_OPTION", `aiSdkRequest's \`${key}\` is data; got a function`);
    }
  }
  if ((prompt === undefined) === (messages === undefined)) {
    throw citeflowError(
      "INVALID_OPTION",
      "aiSdkRequest takes either `prompt` (a string) or `messages` (an array), not both",
    );
  }
  if (prompt !== undefined && typeof prompt !== "string") {
    throw citeflowError("INVALID_TEXT", `prompt must be a string; got ${describe(prompt)}`);
  }
  ready();
  // The core checks policy, markerStyle and enforce, and refuses any other key.
  const asked = core.citeformerCallOptions(plain);
  const defaults = core.citeformerOptions({});
  if (asked.enforce !== null && asked.enforce !== "prompt") {
    throw citeflowError(
      "INVALID_OPTION",
      `aiSdkRequest enforces citations by the prompt's rule alone (enforce "prompt"); got enforce "${asked.enforce}": a grammar, schema or tool is sent by Citeformer's own invokers`,
    );
  }
  const policy = asked.policy ?? defaults.citationPolicy;
  const markerStyle = asked.markerStyle ?? defaults.markerStyle;
  const sources = checkSources(given);
  const conversation = messages === undefined
    ? [{ role: "user", content: prompt }]
    : list(messages, "INVALID_OPTION", "messages");
  return {
    instructions: core.citeformerInstructions(sources, { policy, markerStyle }),
    messages: conversation,
  };
}
