// What a 135M-parameter model needs to answer with citations. The demo's local model
// (scripts/model-server.mjs) is SmolLM2-135M-Instruct; the demo page and the integration tests
// both go through this module (browser and Node alike; it needs only citeflow, initialised).
//
// - One example exchange. Without it SmolLM2 invents facts and leaves markers out. The example
//   is made from the request's own Source 1 (its first sentence, cited [1]), so it shows the
//   form of a cited answer and claims nothing the sources do not say.
// - A bounded citation grammar (citationGrammar's maxSentences, maxCitesPerSentence and
//   maxContentChars). Unbounded, an answer may have any number of sentences and markers per
//   group; a model this small seldom chooses to stop, and then runs to max_tokens, cut
//   mid-sentence (often repeating "[1] [2] [1] ..."). Bounded to a few sentences of limited
//   length with one marker each, decoding always finishes, and every sentence still ends in a
//   marker naming a real source.
import { citationGrammar } from "citeflow";

const SENTENCES = 2;
const MAX_CONTENT_CHARS = 160;
/**
 * Sentences in a small model's answer, characters per sentence, and a token budget the grammar
 * does not outrun: an answer has at most `sentences` × (content + " [N]." + a space)
 * characters, and every token adds at least one (only a byte piece of a non-ASCII character
 * adds less). Typical answers take a fifth of it. `grammar`: the bounds as citationGrammar
 * options.
 */
export const SMALL_MODEL = Object.freeze({
  sentences: SENTENCES,
  maxContentChars: MAX_CONTENT_CHARS,
  maxTokens: SENTENCES * (MAX_CONTENT_CHARS + 6),
  grammar: Object.freeze({ maxSentences: SENTENCES, maxCitesPerSentence: 1, maxContentChars: MAX_CONTENT_CHARS }),
});

const FIRST_SOURCE = /(?:^|\n)Source 1:[^\n]*\n([^\n]*?[.!?])(?=\s|$)/;

/**
 * `messages` (Citeformer's: a system message listing "Source N: title" then the content, and
 * the user's question) with an example exchange before the question. Unchanged when the
 * system message lists no Source 1.
 */
export function withCitedExample(messages) {
  const [system, ...rest] = messages;
  const first = system?.role === "system" ? FIRST_SOURCE.exec(String(system.content)) : null;
  if (first === null || rest.length === 0) return messages;
  const claim = first[1].replace(/[.!?]$/, "").trim();
  return [
    system,
    { role: "user", content: "What does source 1 say?" },
    { role: "assistant", content: `${claim} [1].` },
    ...rest,
  ];
}

/**
 * The citation grammar for the small model: citationGrammar's for `options` (`sourceCount`,
 * `policy` (the `required` one), `markerStyle`), bounded by `SMALL_MODEL.grammar`.
 */
export function boundedCitationGrammar(options) {
  return citationGrammar({ ...options, ...SMALL_MODEL.grammar });
}

/** The per-call options for the small model: the bounded grammar, greedy decoding, a budget that fits it. */
export function smallModelOptions(citeformerOptions) {
  const { policy, markerStyle, sourceCount } = citeformerOptions;
  return {
    grammar: boundedCitationGrammar({ policy, markerStyle, sourceCount }),
    temperature: 0,
    maxTokens: SMALL_MODEL.maxTokens,
  };
}

/**
 * An lmInvoker for Citeformer that gives the small model what it needs: the example exchange
 * and the bounded grammar, on every call. `lm` is a citeflow invoker (buildLMInvoker). (The
 * options alone could go through Citeformer's `modelOptions`; the example exchange changes the
 * messages, which only a wrapper can.)
 */
export function smallModelInvoker(lm) {
  return {
    invoke: (messages, options) => lm.invoke(withCitedExample(messages), { ...options, ...smallModelOptions(options) }),
    stream: (messages, options) => lm.stream(withCitedExample(messages), { ...options, ...smallModelOptions(options) }),
  };
}
