// One fetch-style handler, used unchanged by the Cloudflare Worker, the Node server and the
// Deno server in this folder: POST {question, sources} → the provider's answer stream, with the
// reasoning split off and the citation markers found, re-sent as server-sent events, then the
// rendered reference list.
//
// Events: `thinking_start|thinking|thinking_end|response_start|response|response_end|citation|usage`
// (data: the citeflow event as JSON), then `references` (data: the rendered references) and
// `done`. A provider that fails before answering gives a 502 with {error: {code, message}};
// a failure mid-stream is an `error` event with {code, message}.
import { buildLMInvoker, CitationParser, Citeformer, ThinkTagOutputTransformer } from "citeflow";

/**
 * `config`: { baseUrl, apiKey, model, style? } of an OpenAI-compatible provider. `signal`
 * cancels the provider call when the client goes away (a cancelled response body does too).
 */
export async function citedAnswerResponse(request, config, { signal } = {}) {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors() });
  if (request.method !== "POST") return problem(405, "METHOD_NOT_ALLOWED", "POST a JSON body {question, sources}");
  let body;
  try {
    body = await request.json();
  } catch {
    return problem(400, "INVALID_JSON", "the body is not JSON");
  }
  const { question, sources } = body ?? {};
  let cf, lm, messages;
  try {
    lm = buildLMInvoker(`openai-compatible/${config.model}`, { apiKey: config.apiKey, baseUrl: config.baseUrl });
    cf = new Citeformer({ lmInvoker: lm, style: config.style ?? "apa-7" });
    ({ messages } = cf.request({ prompt: question, sources }));
  } catch (error) {
    return problem(400, error.code ?? "INVALID_REQUEST", error.message);
  }
  const encoder = new TextEncoder();
  const frame = (type, data) => encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  let text = "";
  let usage = null;
  const events = lm.stream(messages, { signal })
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: sources.length }).transformStream());
  const reader = events.getReader();
  // Wait for the first event, so that a provider that fails before answering (bad key, down,
  // unknown model) is an HTTP error from this proxy too, not a 200 with an error inside.
  let first;
  try {
    first = await reader.read();
  } catch (error) {
    return problem(502, error.code ?? "PROVIDER_ERROR", error.message);
  }
  const out = new ReadableStream({
    async pull(controller) {
      try {
        const { value, done } = first ?? (await reader.read());
        first = null;
        if (!done) {
          if (value.type === "response") text += value.value;
          if (value.type === "usage") usage = value.value;
          controller.enqueue(frame(value.type, value));
          return;
        }
        const result = await cf.result(text, sources, usage);
        controller.enqueue(frame("references", result.references));
        controller.enqueue(frame("done", { citations: result.citations.length }));
      } catch (error) {
        controller.enqueue(frame("error", { code: error.code ?? "ERROR", message: error.message }));
      }
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(out, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...cors() },
  });
}

function cors() {
  return { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type" };
}

function problem(status, code, message) {
  return Response.json({ error: { code, message } }, { status, headers: cors() });
}
