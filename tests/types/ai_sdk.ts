// Type-checked (deno check) against pkg/ai-sdk.d.ts and aiSdkRequest in pkg/index.d.ts, with
// AI SDK 7's own types: the middleware and the request as a user writes them.
import { generateText, type LanguageModelMiddleware, type ModelMessage, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { aiSdkRequest } from "citeflow";
import { type AiSdkSource, type CiteflowMiddleware, citeflowMiddleware } from "citeflow/ai-sdk";

const sources: AiSdkSource[] = [
  { content: "The tower is 330 m tall.", metadata: { url: "https://example.org/tower", title: "Tower" } },
  { title: "Guide", filename: "guide.pdf", mediaType: "application/pdf" },
];
const model = new MockLanguageModelV4();

const middleware: CiteflowMiddleware = citeflowMiddleware({ sources, markerStyle: "caret" });
const asAiType: LanguageModelMiddleware = middleware;
const specification: "v4" = middleware.specificationVersion;
const wrapped = wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources }) });
wrapLanguageModel({ model, middleware: [citeflowMiddleware({ tags: ["think", ["<r>", "</r>"]] }), asAiType] });
citeflowMiddleware();
citeflowMiddleware({ startInThinking: true });

// @ts-expect-error: an unknown option
citeflowMiddleware({ sources, bogus: 1 });
// @ts-expect-error: no such marker style
citeflowMiddleware({ sources, markerStyle: "angle" });

const request = aiSdkRequest({ prompt: "How tall is it?", sources: [{ metadata: { title: "Tower" } }] });
const instructions: string = request.instructions;
const first: { role: "user"; content: string } = request.messages[0];
streamText({ model: wrapped, ...request });
const history: ModelMessage[] = [{ role: "user", content: "Hi" }];
const chat = aiSdkRequest({ messages: history, sources: [{ metadata: {} }], policy: "auto", enforce: "prompt" });
const kept: ModelMessage[] = chat.messages;
await generateText({ model: wrapped, ...chat });
// @ts-expect-error: only the prompt's rule is enforced through the AI SDK
aiSdkRequest({ prompt: "q", sources: [{ metadata: {} }], enforce: "schema" });
// @ts-expect-error: a prompt or messages, not both
aiSdkRequest({ prompt: "q", messages: history, sources: [{ metadata: {} }] });

export { first, instructions, kept, specification };
