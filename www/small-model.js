// What a 135M-parameter model needs to answer with citations. The demo's local model
// (scripts/model-server.mjs) is SmolLM2-135M-Instruct; the demo page and the integration tests
// both go through this module, which depends on nothing (browser and Node alike).
//
// - One example exchange. Without it SmolLM2 invents facts and leaves markers out. The example
//   is made from the request's own Source 1 (its first sentence, cited [1]), so it shows the
//   form of a cited answer and claims nothing the sources do not say.
// - A bounded citation grammar. Citeformer's GBNF lets an answer have any number of sentences
//   and any number of markers per group; a model this small seldom chooses to stop, and then
//   runs to max_tokens, cut mid-sentence (often repeating "[1] [2] [1] ..."). Bounded to a few
//   sentences of limited length with one marker each, decoding always finishes, and every
//   sentence still ends in a marker naming a real source.

const SENTENCES = 2;
const MAX_CONTENT_CHARS = 160;
/**
 * Sentences in a small model's answer, characters per sentence, and a token budget the grammar
 * does not outrun: an answer has at most `sentences` × (content + " [N]." + a space)
 * characters, and every token adds at least one (only a byte piece of a non-ASCII character
 * adds less). Typical answers take a fifth of it.
 */
export const SMALL_MODEL = Object.freeze({ sentences: SENTENCES, maxContentChars: MAX_CONTENT_CHARS, maxTokens: SENTENCES * (MAX_CONTENT_CHARS + 6) });

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

function replaceRule(grammar, rule, body) {
  const line = new RegExp(`^${rule} ::= .*$`, "m");
  if (!line.test(grammar)) throw new Error(`boundedCitationGrammar: the grammar has no \`${rule}\` rule (did citationGrammar's shape change?)`);
  return grammar.replace(line, `${rule} ::= ${body}`);
}

/**
 * Citeformer's "required" GBNF (from `cf.request(...).options.grammar` or `citationGrammar`)
 * bounded: at most `sentences` sentences, each at most `maxContentChars` characters before one
 * marker. The sentence, marker and ending rules are Citeformer's own.
 */
export function boundedCitationGrammar(grammar, { sentences = SMALL_MODEL.sentences, maxContentChars = SMALL_MODEL.maxContentChars } = {}) {
  if (!/^sentence ::= content cite-group sent-end$/m.test(grammar)) {
    throw new Error("boundedCitationGrammar: expected the `required` policy's grammar (sentence ::= content cite-group sent-end)");
  }
  let more = "";
  for (let i = 1; i < sentences; i++) more = ` (ws sentence${more})?`;
  let bounded = replaceRule(grammar, "root", `sentence${more}`);
  bounded = replaceRule(bounded, "cite-group", "cite-id");
  const content = /^content ::= (.*)\{1,\d+\}$/m.exec(bounded);
  if (content === null) throw new Error("boundedCitationGrammar: the grammar's `content` rule is not a bounded character class");
  return replaceRule(bounded, "content", `${content[1]}{1,${maxContentChars}}`);
}

/** The per-call options for the small model: the bounded grammar, greedy decoding, a budget that fits it. */
export function smallModelOptions(citeformerOptions) {
  return { grammar: boundedCitationGrammar(citeformerOptions.grammar), temperature: 0, maxTokens: SMALL_MODEL.maxTokens };
}

/**
 * An lmInvoker for Citeformer that gives the small model what it needs: the example exchange
 * and the bounded grammar, on every call. `lm` is a citeflow invoker (buildLMInvoker).
 */
export function smallModelInvoker(lm) {
  return {
    invoke: (messages, options) => lm.invoke(withCitedExample(messages), { ...options, ...smallModelOptions(options) }),
    stream: (messages, options) => lm.stream(withCitedExample(messages), { ...options, ...smallModelOptions(options) }),
  };
}
