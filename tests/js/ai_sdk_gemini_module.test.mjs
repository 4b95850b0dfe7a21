// "citeflow/ai-sdk" loads citeflow's full streaming module (which reads Gemini's grounding) for a
// Gemini model only; and `groundingCitations` refuses metadata that is not Gemini's. Its own file:
// the full module is loaded once per process, and this checks when.
import assert from "node:assert/strict";
import fs, { readFileSync } from "node:fs";
import { test } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, wrapLanguageModel } from "ai";

// Node reads the full module's file at its first use, with the `readFileSync` citeflow takes
// when it is imported: every file read through it is noted (citeflow is imported after this).
const read = [];
const original = fs.readFileSync;
fs.readFileSync = (path, ...rest) => {
  read.push(String(path));
  return original(path, ...rest);
};
const { citeflowMiddleware } = await import("citeflow/ai-sdk");
const { groundingCitations } = await import("citeflow/stream");
fs.readFileSync = original;

const FIXTURES = new URL("../fixtures/providers/", import.meta.url);
const recorded = (file) => async () =>
  new Response(readFileSync(new URL(file, FIXTURES)), { headers: { "content-type": "application/json" } });

test("the full streaming module is read for a Gemini model, not for another", async () => {
  const fullRead = () => read.filter((p) => p.includes("citeflow_stream_full_bg.wasm")).length;
  const claude = createAnthropic({ apiKey: "test", fetch: recorded("anthropic/web-search-citations.json") })(
    "claude-sonnet-4-20250514",
  );
  await generateText({
    model: wrapLanguageModel({ model: claude, middleware: citeflowMiddleware({}) }),
    prompt: "q",
  });
  assert.equal(fullRead(), 0);
  const gemini = createGoogleGenerativeAI({ apiKey: "test", fetch: recorded("google/web-search-grounding.json") })(
    "gemini-2.5-pro",
  );
  const result = await generateText({
    model: wrapLanguageModel({ model: gemini, middleware: citeflowMiddleware({}) }),
    prompt: "q",
  });
  assert.equal(fullRead(), 1);
  assert.equal(result.content.find((p) => p.type === "text").citations.length, 6);
});

test("groundingCitations: metadata not of Gemini's shape is INVALID_PROVIDER_DATA", () => {
  const text = "Tokyo 東京 is big.";
  for (
    const bad of [
      [],
      { groundingSupports: 1 },
      { groundingChunks: [{ web: { uri: 5 } }] },
      { groundingSupports: [{ segment: { startIndex: "0" }, groundingChunkIndices: [0] }] },
      undefined,
      { n: 1n },
      { groundingChunks: [], retrievalMetadata: () => ({}) }, // a function is not dropped silently
      { groundingChunks: Object.assign([], { length: 2 ** 32 - 1 }) }, // not written out in full
    ]
  ) {
    assert.throws(() => groundingCitations(text, bad), { name: "CiteflowError", code: "INVALID_PROVIDER_DATA" });
  }
  assert.throws(() => groundingCitations(5, {}), { code: "INVALID_TEXT" });
  // Not Gemini's grounding, but its shape: nothing cited.
  assert.deepEqual(groundingCitations(text, {}), { citations: [], sources: [] });
});
