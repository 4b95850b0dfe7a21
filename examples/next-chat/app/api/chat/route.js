// The chat endpoint useChat posts to. The model is any OpenAI-compatible server (by default the
// citeflow repository's local model server); citeflow's middleware turns its `<think>` blocks
// into reasoning parts and its [N] markers into citations and source parts.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { convertToModelMessages, streamText, wrapLanguageModel } from "ai";
import { aiSdkRequest } from "citeflow";
import { citeflowMiddleware } from "citeflow/ai-sdk";
import sources from "../../../sources.json";

export async function POST(request) {
  const { messages } = await request.json();
  const provider = createOpenAICompatible({
    name: "chat",
    baseURL: process.env.BASE_URL ?? "http://127.0.0.1:8082/v1",
    apiKey: process.env.API_KEY,
  });
  const model = wrapLanguageModel({
    model: provider(process.env.MODEL ?? "SmolLM2-135M-Instruct"),
    middleware: citeflowMiddleware({ sources }),
  });
  // The instructions number the sources and ask for a marker after each claim.
  const result = streamText({
    model,
    ...aiSdkRequest({ messages: await convertToModelMessages(messages), sources }),
  });
  return result.toUIMessageStreamResponse({ sendSources: true });
}
