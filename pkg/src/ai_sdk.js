// "citeflow/ai-sdk": citeflow as an AI SDK language-model middleware (specification "v4", the
// AI SDK 7 interface). A plain object, so nothing is imported from `ai` at run time; citeflow's
// streaming classes come from "citeflow/stream" by the package's own name, so the module of the
// runtime in use (and its one wasm instance) is the one loaded.
import { CitationParser, ThinkTagOutputTransformer } from "citeflow/stream";
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
 * An AI SDK 7 middleware: `<think>` blocks (or the given tags) become reasoning parts, `[N]`
 * markers become positional `citations` on their text part with a `source` part per cited
 * source; everything else passes through in order.
 */
export function citeflowMiddleware(options, ...more) {
  noMoreArguments([options, ...more], 1, "citeflowMiddleware");
  const config = checkOptions(options);
  return {
    specificationVersion: "v4",
    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      const splitter = new TextPartSplitter(config);
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
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      return { ...result, content: new TextPartSplitter(config).content(result.content) };
    },
  };
}
