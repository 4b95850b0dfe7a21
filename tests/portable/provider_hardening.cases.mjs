// What a provider sends back that must not reach a caller as it is: a key echoed
// percent-encoded in an error, a cited URL that is no http(s) URL. Written once, run by node
// --test (tests/js/provider_hardening.test.mjs) and in every browser engine
// (tests/browser/cases.html). Each case gets { lib, assert, base }: the package, node:assert-like
// checks and the fake provider's base URL (tests/js/support/fake-provider.mjs).
import { drain } from "./drain.mjs";
import { assertNoKey } from "./invoker.cases.mjs";

// Reserved characters every few characters: no ten characters of it in a row survive
// URL-encoding unchanged, so only a rule that reads escapes finds it.
const KEY = "k/9+Xa/7+Qm=2Xr/9Lw+4T=z8/qB+e=4/j";
const MARK = "[redacted]";

/** A fetch answering every request with `body` (a string) as `type`, status 200. */
const answering = (body, type) => () =>
  Promise.resolve(new Response(body, { status: 200, headers: { "content-type": type } }));

const sse = (events) => events.map((e) => `${e}\n\n`).join("");
const data = (value) => `data: ${JSON.stringify(value)}`;
const anthropicEvent = (type, value) => `event: ${type}\n${data({ type, ...value })}`;

// Recorded shapes: an OpenAI web search answer's `url_citation` annotations and Anthropic web
// search citations, each with a `javascript:` URL, a `data:` URL and an http(s) one.
const HOSTILE = "javascript:alert(document.cookie)";
const DATA = "data:text/html,<script>alert(1)</script>";
const SAFE = "https://example.org/boil";
const TEXT = "Water boils at 100 °C. Ice floats. See more.";
const annotation = (start, end, url, title) => ({
  type: "url_citation",
  url_citation: { start_index: start, end_index: end, url, title },
});
const ANNOTATIONS = [
  annotation(0, 22, HOSTILE, "Boiling"),
  annotation(23, 34, DATA, "Ice"),
  annotation(35, 44, SAFE, "More"),
];
const webCitation = (url, title, cited) => ({
  type: "web_search_result_location",
  url,
  title,
  encrypted_index: "Eo8BCioIAhgBIiQ",
  cited_text: cited,
});
const BLOCKS = [
  { type: "text", text: "Water boils at 100 °C.", citations: [webCitation(HOSTILE, "Boiling", "100 °C")] },
  {
    type: "text",
    text: " Ice floats.",
    citations: [webCitation(DATA, "Ice", "floats"), webCitation(SAFE, "More", "x")],
  },
];

/** What each path must give for the three citations: the unsafe URLs as `rawUrl`, unnumbered. */
const expectedOpenAi = [
  { sourceId: 0, marker: "", span: [0, 22], valid: false, documentTitle: "Boiling", rawUrl: HOSTILE },
  { sourceId: 0, marker: "", span: [23, 34], valid: false, documentTitle: "Ice", rawUrl: DATA },
  { sourceId: 1, marker: "", span: [35, 44], valid: true, documentTitle: "More", url: SAFE },
].map((c) => ({ ...c, location: "url_citation", covers: "link" }));
const expectedAnthropic = [
  { sourceId: 0, span: [0, 22], valid: false, citedText: "100 °C", documentTitle: "Boiling", rawUrl: HOSTILE },
  { sourceId: 0, span: [22, 34], valid: false, citedText: "floats", documentTitle: "Ice", rawUrl: DATA },
  { sourceId: 1, span: [22, 34], valid: true, citedText: "x", documentTitle: "More", url: SAFE },
].map(({ sourceId, span, valid, ...rest }) => ({
  sourceId,
  marker: "",
  span,
  valid,
  ...rest,
  location: "web_search_result_location",
  covers: "claim",
}));

const openAiWhole = JSON.stringify({
  id: "chatcmpl-w",
  object: "chat.completion",
  model: "gpt-4o-search-preview",
  choices: [{
    index: 0,
    message: { role: "assistant", content: TEXT, annotations: ANNOTATIONS },
    finish_reason: "stop",
  }],
  usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
});
const openAiChunk = (delta, finish = null) =>
  data({ id: "chatcmpl-w", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
const openAiStream = sse([
  openAiChunk({ role: "assistant", content: "" }),
  openAiChunk({ content: TEXT.slice(0, 20) }),
  openAiChunk({ content: TEXT.slice(20) }),
  openAiChunk({ annotations: ANNOTATIONS }),
  openAiChunk({}, "stop"),
  "data: [DONE]",
]);
const anthropicAnswer = (content) =>
  JSON.stringify({
    id: "msg_w",
    type: "message",
    role: "assistant",
    model: "claude",
    content,
    stop_reason: "end_turn",
    usage: { input_tokens: 9, output_tokens: 12 },
  });
const anthropicWhole = anthropicAnswer(BLOCKS);
const anthropicStream = sse([
  anthropicEvent("message_start", { message: { id: "msg_w", usage: { input_tokens: 9, output_tokens: 1 } } }),
  ...BLOCKS.flatMap((b, index) => [
    anthropicEvent("content_block_start", { index, content_block: { type: "text", text: "", citations: [] } }),
    ...b.citations.map((citation) =>
      anthropicEvent("content_block_delta", { index, delta: { type: "citations_delta", citation } })
    ),
    anthropicEvent("content_block_delta", { index, delta: { type: "text_delta", text: b.text } }),
    anthropicEvent("content_block_stop", { index }),
  ]),
  anthropicEvent("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 12 } }),
  anthropicEvent("message_stop", {}),
]);

const PROVIDERS = {
  openai: { model: "openai/gpt-4o-search-preview", whole: openAiWhole, stream: openAiStream, want: expectedOpenAi },
  anthropic: { model: "anthropic/claude", whole: anthropicWhole, stream: anthropicStream, want: expectedAnthropic },
};

/** The `citation` events' values among `events`. */
const citationsOf = (events) => events.filter((e) => e.type === "citation").map((e) => e.value);

export const providerHardeningCases = {
  async "a key echoed percent-encoded (either hex case, in part, cut) is redacted"({ lib, assert, base }) {
    const upper = encodeURIComponent(KEY);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    for (const provider of ["openai-compatible", "anthropic"]) {
      const lm = lib.buildLMInvoker(`${provider}/echo-encoded`, { apiKey: KEY, baseUrl: base, maxRetries: 0 });
      for (const [how, call] of [["invoke", () => lm.invoke("Hi")], ["stream", () => drain(lm.stream("Hi"))]]) {
        const where = `${provider} ${how}`;
        let error;
        await assert.rejects(call, (e) => ((error = e), e?.code === "PROVIDER_ERROR" && e.status === 401), where);
        // The provider's words kept, each echo of the key out; a cut escape ("%2") is no
        // piece of anything.
        assert.equal(
          error.providerMessage,
          `Incorrect API key provided: ${MARK}. Seen as ${MARK} and ${MARK}; logged ${MARK}%2`,
          where,
        );
        for (const form of [KEY, upper, lower]) assertNoKey(error, form, `${where}: ${form}`);
      }
    }
  },

  async "a provider's javascript: or data: URL is never a citation's url; it is kept as rawUrl"({ lib, assert }) {
    for (const [name, { model, whole, stream, want }] of Object.entries(PROVIDERS)) {
      const lm = (body, type) =>
        lib.buildLMInvoker(model, { apiKey: "k", fetch: answering(body, type), maxRetries: 0 });
      const out = await lm(whole, "application/json").invoke("Why?");
      assert.deepEqual(out.citations, want, `${name} whole`);
      const events = await drain(lm(stream, "text/event-stream").stream("Why?"));
      assert.deepEqual(citationsOf(events), want, `${name} streamed`);
      const body = new Response(stream).body;
      const decoded = await drain(lib.decodeProviderStream(body, name));
      assert.deepEqual(citationsOf(decoded), want, `${name} decodeProviderStream`);
      for (const c of [...out.citations, ...citationsOf(events), ...citationsOf(decoded)]) {
        assert.ok(c.url === undefined || /^https?:\/\//.test(c.url), `${name}: url ${c.url}`);
      }
    }
  },

  async "a Citeformer result keeps the rawUrl citations and lists no source for them"({ lib, assert }) {
    const sources = [{ content: "Water boils at 100 °C.", metadata: { title: "Boiling", author: "A. Author" } }];
    // A search result cited by index whose `source` is no http(s) URL: it names the search
    // result (valid), and, as a cited page, is no source of the list, as with an http(s) one.
    const searched = {
      type: "text",
      text: " It is so.",
      citations: [{
        type: "search_result_location",
        search_result_index: 0,
        source: "kb://handbook/boiling",
        title: "Handbook",
        cited_text: "so",
      }],
    };
    const fromIndex = {
      sourceId: 1,
      marker: "",
      span: [34, 44],
      valid: true,
      citedText: "so",
      documentTitle: "Handbook",
      rawUrl: "kb://handbook/boiling",
      location: "search_result_location",
      covers: "claim",
    };
    const answers = {
      openai: [openAiWhole, expectedOpenAi],
      anthropic: [anthropicAnswer([...BLOCKS, searched]), [...expectedAnthropic, fromIndex]],
    };
    for (const [name, [whole, want]] of Object.entries(answers)) {
      const fetch = answering(whole, "application/json");
      const lmInvoker = lib.buildLMInvoker(PROVIDERS[name].model, { apiKey: "k", fetch, maxRetries: 0 });
      const result = await new lib.Citeformer({ lmInvoker, enforce: "prompt" }).generate({ prompt: "Why?", sources });
      assert.deepEqual(result.citations, want, name);
      // No citation names source 1 of the list: a cited page (however given) is not one.
      assert.deepEqual(result.references, [], name);
    }
  },
};
