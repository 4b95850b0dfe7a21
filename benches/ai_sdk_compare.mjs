#!/usr/bin/env node
// The same five think-tag stream shapes through the AI SDK's own `extractReasoningMiddleware`
// and through citeflow's `citeflowMiddleware`, read as `useChat` reads them (`streamText` →
// `toUIMessageStream` → `readUIMessageStream`); prints a markdown table of what each gives.
// Every cell is computed from the final UI message. Usage: node benches/ai_sdk_compare.mjs
// [--check]: with --check, nothing is printed and the exit code says whether docs/ai-sdk.md
// holds the full table and README.md the summary, as this run computes them.
import { readFileSync } from "node:fs";
import { extractReasoningMiddleware, readUIMessageStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { citeflowMiddleware } from "citeflow/ai-sdk";

// Each shape: the chunks the model streams, and the order of its blocks as written.
const SHAPES = [
  ["split tags", ["<thi", "nk>Plan.</thi", "nk>It is 330 m tall."], ["reasoning", "text"]],
  ["partial tag at the end", ["<think>Plan.</think>It is 330 m tall. <thi"], ["reasoning", "text"]],
  ["unclosed block", ["<think>Still thinking", " about it"], ["reasoning"]],
  ["stray close tag", ["It is 330 m</think> tall."], ["text"]],
  ["two blocks", ["<think>First.</think>One.", "<think>Second.</think>Two."], [
    "reasoning",
    "text",
    "reasoning",
    "text",
  ]],
];

const MIDDLEWARES = [
  ['`extractReasoningMiddleware({ tagName: "think" })`', () => extractReasoningMiddleware({ tagName: "think" })],
  ["`citeflowMiddleware()`", () => citeflowMiddleware()],
];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function model(chunks) {
  const parts = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...chunks.map((delta) => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ];
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      }),
    }),
  });
}

async function finalParts(chunks, middleware) {
  const result = streamText({ model: wrapLanguageModel({ model: model(chunks), middleware }), prompt: "q" });
  let last;
  for await (const message of readUIMessageStream({ stream: result.toUIMessageStream() })) last = message;
  return last.parts.filter((p) => p.type === "reasoning" || p.type === "text");
}

const yesNo = (b) => (b ? "yes" : "**no**");
// A cell's text as code, its line breaks written as \n so the table stays one row.
const code = (s) => `\`${s.replaceAll("`", "'").replaceAll("\n", "\\n")}\``;
const list = (parts) => parts.map((p) => code(p.text)).join(", ") || "(none)";

const rows = [];
const summary = [];
for (const [shape, chunks, order] of SHAPES) {
  const verdicts = [];
  for (const [name, make] of MIDDLEWARES) {
    const parts = await finalParts(chunks, make());
    const reasoning = parts.filter((p) => p.type === "reasoning");
    // Blocks as the UI shows them: empty parts are not blocks a reader sees.
    const shown = parts.filter((p) => p.text !== "").map((p) => p.type);
    const closed = reasoning.every((p) => p.state === "done");
    const stray = parts.some((p) => p.type === "text" && p.text.includes("</think>"));
    const inOrder = JSON.stringify(shown) === JSON.stringify(order);
    rows.push([
      shape,
      name,
      list(reasoning),
      reasoning.length === 0 ? "n/a" : yesNo(closed),
      stray ? "**yes**" : "no",
      `${yesNo(inOrder)} (${shown.join(", ") || "none"})`,
      list(parts.filter((p) => p.type === "text")),
    ]);
    const wrong = [
      ...(closed ? [] : ["reasoning never ends"]),
      ...(stray ? ["shows `</think>`"] : []),
      ...(inOrder ? [] : [`blocks out of order (${shown.join(", ")})`]),
    ];
    verdicts.push(wrong.length === 0 ? "right" : `**${wrong.join("; ")}**`);
  }
  summary.push([shape, ...verdicts]);
}

/** A markdown table of these rows. */
const table = (header, body) =>
  [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...body.map((r) => `| ${r.join(" | ")} |`)]
    .join("\n");

const full = table([
  "stream",
  "middleware",
  "reasoning",
  "reasoning closed?",
  "stray `</think>` shown?",
  "blocks in order? (parts shown)",
  "text parts",
], rows);
const short = table(["stream", ...MIDDLEWARES.map(([name]) => name)], summary);

if (process.argv.includes("--check")) {
  const root = new URL("../", import.meta.url);
  const stale = [["docs/ai-sdk.md", full], ["README.md", short]]
    .filter(([file, text]) => !readFileSync(new URL(file, root), "utf8").includes(text))
    .map(([file]) => file);
  if (stale.length) {
    console.error(
      `ai_sdk_compare: the table in ${
        stale.join(" and ")
      } is not what this run measures; paste the output of node benches/ai_sdk_compare.mjs`,
    );
    process.exit(1);
  }
} else {
  console.log(`${full}\n\nSummary:\n\n${short}`);
}
