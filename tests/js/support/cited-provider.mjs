// A local server answering cited questions in each wire format the way each provider does
// when asked to enforce citations (shapes from the providers' API references):
// - OpenAI Chat Completions with `response_format: json_schema` (name "cited_answer"): the
//   answer JSON as message content, or streamed as content deltas;
// - Anthropic Messages with a forced tool (`tool_choice: {type: "tool", name: "cited_answer"}`):
//   a `tool_use` block, or streamed as `input_json_delta` pieces;
// - a llama.cpp-style server given a GBNF `grammar`: marked prose;
// - no mechanism (the prompt rule alone): marked prose.
// Model "ignores-schema" answers prose whatever it is asked (a server without structured
// outputs). Model "native" answers with the provider's own citations instead: Anthropic text blocks with
// `citations` (char/page locations), OpenAI `url_citation` annotations; streamed and whole.
// Every request is logged for the tests to read. Under `/recorded/<provider>/` it serves the
// recorded answers of tests/fixtures/providers (./recorded-provider.mjs).
import { createServer } from "node:http";
import { answerRecorded } from "./recorded-provider.mjs";

export const CITED = {
  segments: [
    { text: "Water boils at 100 degrees Celsius.", citations: [1] },
    { text: "Ice is 3.5 % lighter, so it floats!", citations: [2, 1] },
  ],
};
/** What the cited answer reads as marked text (bracket style). */
export const MARKED = "Water boils at 100 degrees Celsius [1]. Ice is 3.5 % lighter, so it floats [2] [1]!";
const PROSE = "Water boils at 100 degrees Celsius [1]. Ice floats [2].";

/** Cuts a text into pieces of `n` characters, as tokens arrive. */
const pieces = (text, n = 9) =>
  Array.from({ length: Math.ceil(text.length / n) }, (_, i) => text.slice(i * n, (i + 1) * n));

const chunk = (delta, finish = null) =>
  `data: ${
    JSON.stringify({
      id: "chatcmpl-c",
      object: "chat.completion.chunk",
      created: 1700000000,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;
const usageChunk = `data: ${
  JSON.stringify({
    id: "chatcmpl-c",
    object: "chat.completion.chunk",
    choices: [],
    usage: { prompt_tokens: 30, completion_tokens: 20, total_tokens: 50 },
  })
}\n\n`;
const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const messageStart = event("message_start", {
  message: {
    id: "msg_c",
    type: "message",
    role: "assistant",
    model: "claude",
    content: [],
    stop_reason: null,
    usage: { input_tokens: 30, output_tokens: 1 },
  },
});
const messageEnd = (
  reason,
) => [
  event("message_delta", { delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 20 } }),
  event("message_stop", {}),
];

// The provider's own citations (model "native").
const WEB_TEXT = "Water boils at 100 °C ([Boiling](https://example.org/boil)).";
const webAnnotation = {
  type: "url_citation",
  url_citation: { start_index: 23, end_index: 58, url: "https://example.org/boil", title: "Boiling point" },
};
const DOC_BLOCKS = [
  { type: "text", text: "Per the sources, " },
  {
    type: "text",
    text: "water boils at 100 degrees",
    citations: [{
      type: "char_location",
      cited_text: "Water boils at 100 degrees Celsius at sea level.",
      document_index: 0,
      document_title: "Boiling point of water",
      start_char_index: 0,
      end_char_index: 48,
    }],
  },
  {
    type: "text",
    text: " and ice floats.",
    citations: [{
      type: "page_location",
      cited_text: "Ice is less dense than liquid water, so it floats.",
      document_index: 1,
      document_title: "Why ice floats",
      start_page_number: 2,
      end_page_number: 3,
    }],
  },
];

export async function startCitedProvider() {
  const requests = [];
  const server = createServer(async (req, res) => {
    // Browsers call it from another origin (tests/rust-web).
    res.setHeader("access-control-allow-origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-headers": "authorization, content-type, x-api-key, x-goog-api-key, anthropic-version",
        "access-control-allow-methods": "POST",
      });
      return res.end();
    }
    let raw = "";
    for await (const c of req) raw += c;
    if (answerRecorded(req, res, raw)) return;
    const body = raw ? JSON.parse(raw) : {};
    requests.push({ url: req.url, body });
    const json = (value) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const sse = (parts) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const p of parts) res.write(p);
      res.end();
    };
    const native = body.model === "native";
    // Model "no-structured" refuses structured outputs and tools, as models without them do.
    if (String(body.model).endsWith("no-structured") && (body.response_format || body.tools)) {
      res.writeHead(400, { "content-type": "application/json" });
      const message = "This model does not support structured outputs or tools";
      return res.end(
        JSON.stringify(
          req.url === "/v1/messages"
            ? { type: "error", error: { type: "invalid_request_error", message } }
            : { error: { message, type: "invalid_request_error", param: "response_format", code: null } },
        ),
      );
    }
    if (req.url === "/v1/chat/completions") {
      const schema = body.response_format?.json_schema?.name === "cited_answer" && body.model !== "ignores-schema";
      const text = native ? WEB_TEXT : schema ? JSON.stringify(CITED) : PROSE;
      if (body.stream) {
        const annotations = native ? [chunk({ annotations: [webAnnotation] })] : [];
        return sse([
          chunk({ role: "assistant", content: "" }),
          ...pieces(text).map((p) => chunk({ content: p })),
          ...annotations,
          chunk({}, "stop"),
          usageChunk,
          "data: [DONE]\n\n",
        ]);
      }
      const message = { role: "assistant", content: text, ...(native ? { annotations: [webAnnotation] } : {}) };
      return json({
        id: "chatcmpl-c",
        object: "chat.completion",
        model: body.model,
        choices: [{ index: 0, message, finish_reason: "stop" }],
        usage: { prompt_tokens: 30, completion_tokens: 20, total_tokens: 50 },
      });
    }
    if (req.url === "/v1/messages") {
      const tool = body.tool_choice?.type === "tool" && body.tool_choice.name === "cited_answer";
      if (body.stream && tool) {
        const input = pieces(JSON.stringify(CITED), 11).map((p) =>
          event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: p } })
        );
        return sse([
          messageStart,
          event("content_block_start", {
            index: 0,
            content_block: { type: "tool_use", id: "toolu_c", name: "cited_answer", input: {} },
          }),
          event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: "" } }),
          ...input,
          event("content_block_stop", { index: 0 }),
          ...messageEnd("tool_use"),
        ]);
      }
      if (body.stream) {
        const blocks = native ? DOC_BLOCKS : [{ type: "text", text: PROSE }];
        const parts = blocks.flatMap((b, index) => [
          event("content_block_start", {
            index,
            content_block: { type: "text", text: "", ...(b.citations ? { citations: [] } : {}) },
          }),
          ...(b.citations ?? []).map((citation) =>
            event("content_block_delta", { index, delta: { type: "citations_delta", citation } })
          ),
          ...pieces(b.text).map((text) => event("content_block_delta", { index, delta: { type: "text_delta", text } })),
          event("content_block_stop", { index }),
        ]);
        return sse([messageStart, ...parts, ...messageEnd("end_turn")]);
      }
      const content = tool
        ? [{ type: "tool_use", id: "toolu_c", name: "cited_answer", input: CITED }]
        : native
        ? DOC_BLOCKS
        : [{ type: "text", text: PROSE }];
      return json({
        id: "msg_c",
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: tool ? "tool_use" : "end_turn",
        usage: { input_tokens: 30, output_tokens: 20 },
      });
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}
