// "citeflow/ai-sdk": citeflow as an AI SDK language-model middleware (specification "v4", the
// AI SDK 7 interface). A plain object, so nothing is imported from `ai` at run time; citeflow's
// streaming classes come from "citeflow/stream" by the package's own name, so the module of the
// runtime in use (and its one wasm instance) is the one loaded.
import { CitationParser, initFull, ThinkTagOutputTransformer } from "citeflow/stream";
import { citeflowError, describe, fields, isArray, list, noMoreArguments } from "./errors.js";
import { documentSources } from "./ai_sdk_sources.js";
import { TextPartSplitter } from "./ai_sdk_split.js";

const OPTIONS = ["sources", "markerStyle", "tags", "startInThinking"];

/** The middleware's options checked once, with the transformers' own readers for theirs. */
function checkOptions(options) {
  const given = fields(options, "INVALID_OPTION", "citeflowMiddleware options");
  for (const [key, value] of Object.entries(given)) {
    if (!OPTIONS.includes(key)) {
      throw citeflowError(
        "INVALID_OPTION",
        `citeflowMiddleware has no option \`${key}\` (it takes ${OPTIONS.join(", ")})`,
      );
    }
    if (typeof value === "function") {
      throw citeflowError("INVALID_OPTION", `citeflowMiddleware's \`${key}\` is data; got a function`);
    }
  }
  const { sources, markerStyle, tags, startInThinking } = given;
  const think = {
    ...(tags === undefined ? {} : { tags }),
    ...(startInThinking === undefined ? {} : { startInThinking }),
  };
  // Built once here so a bad tag or marker style fails when the middleware is made.
  new ThinkTagOutputTransformer(think);
  let cite = null;
  let parts = [];
  if (sources !== undefined) {
    if (!isArray(sources)) {
      throw citeflowError("INVALID_SOURCE", `\`sources\` must be an array of sources; got ${describe(sources)}`);
    }
    parts = documentSources(list(sources, "INVALID_SOURCE", "sources"));
    cite = { sourceCount: parts.length, ...(markerStyle === undefined ? {} : { markerStyle }) };
    new CitationParser(cite);
  } else if (markerStyle !== undefined) {
    throw citeflowError(
      "INVALID_OPTION",
      "citeflowMiddleware's `markerStyle` needs `sources` (markers are read only against the sources they number)",
    );
  }
  return { think, cite, parts };
}

/**
 * Whether the model is Gemini's (@ai-sdk/google names its models' provider
 * "google.generative-ai", or "<name>.generative-ai" when the app names the provider; Vertex's
 * start with "google."): its grounding comes at the finish, as provider metadata.
 */
const isGemini = (model) =>
  typeof model?.provider === "string" &&
  (model.provider.startsWith("google.") || model.provider.endsWith(".generative-ai"));

/**
 * Gemini's grounding is read by the full streaming module: loaded for a Gemini model only (in a
 * browser now; elsewhere at its first use).
 */
async function splitterFor(config, model) {
  if (!isGemini(model)) return new TextPartSplitter(config);
  await initFull();
  return new TextPartSplitter(config, { holdTextEnds: true });
}

/**
 * An AI SDK 7 middleware: `<think>` blocks (or the given tags) become reasoning parts, `[N]`
 * markers become positional `citations` on their text part with a `source` part per cited
 * source; a Gemini answer's grounding becomes positional `citations` on its text parts (which
 * end at the model's finish, where the grounding comes); everything else passes through in
 * order.
 */
export function citeflowMiddleware(options, ...more) {
  noMoreArguments([options, ...more], 1, "citeflowMiddleware");
  const config = checkOptions(options);
  return {
    specificationVersion: "v4",
    async wrapStream({ doStream, model }) {
      const { stream, ...rest } = await doStream();
      const splitter = await splitterFor(config, model);
      return {
        ...rest,
        stream: stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              for (const out of splitter.take(part)) controller.enqueue(out);
            },
            flush(controller) {
              for (const out of splitter.end()) controller.enqueue(out);
            },
          }),
        ),
      };
    },
    async wrapGenerate({ doGenerate, model }) {
      const result = await doGenerate();
      const splitter = await splitterFor(config, model);
      return { ...result, content: splitter.content(result.content, result.providerMetadata) };
    },
  };
}
