#!/usr/bin/env node
// Writes docs/performance.md from one `make bench` run (benches/results/latest.json): the
// figures of that run only, as tables, and how they are measured. `make bench` calls it at its
// end (benches/run.mjs); by hand: `node scripts/performance-doc.mjs [results.json] [--out=file]`.
// A quick run (`--quick`, the test command's check that the benchmarks still run) is not a
// measurement, and is refused.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { goals } from "../benches/goals.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

const fixed = (x, digits = 2) => x.toFixed(digits);
const int = (x) => Math.round(x).toLocaleString("en-US");
const range = ([lo, hi], digits = 1) => (lo === hi ? fixed(lo, digits) : `${fixed(lo, digits)}–${fixed(hi, digits)}`);
const table = (head, rows) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)]
    .join("\n");

function machineLine(run) {
  const m = run.machine;
  const parts = [`Node ${run.node}`];
  if (m) {
    parts.push(`${m.cpus} × ${m.cpuModel}`, `${m.platform}`);
    if (m.loadavg) {
      parts.push(`load average ${m.loadavg.map((x) => x.toFixed(1)).join(" / ")} (1 / 5 / 15 min) at the start`);
    }
  }
  return parts.join(", ");
}

/** The page, as Markdown, for the results of one full run. */
export function performancePage(run) {
  if (run.quick) throw new Error("a --quick run is a check, not a measurement: run `make bench`");
  const r = Object.fromEntries(run.results.map((x) => [x.name, x]));
  const out = [];
  const add = (...blocks) => out.push(...blocks.flatMap((block) => [block, ""]));
  add(
    "# Performance",
    "<!-- Written by scripts/performance-doc.mjs from benches/results/latest.json (`make bench`); edit the script, not this file. -->",
    `The figures of one \`make bench\` run, ${run.date.slice(0, 10)} (${
      machineLine(run)
    }). A ratio is the peer's time over citeflow's: above 1, citeflow is faster. How they are measured: [below](#method).`,
  );

  if (r.pipeline) {
    add(
      "## The whole client-side stream",
      "Raw SSE bytes → events → think tags → citations, a 20,000-token answer cut into network chunks (`benches/pipeline.mjs`). citeflow: one `ProviderBodyDecoder` running a `ThinkTagOutputTransformer` and a `CitationParser`. Peer: eventsource-parser, `JSON.parse`, the AI SDK's `extractReasoningMiddleware` transform and a regular expression for `[N]`.",
      table(
        ["body", "chunks", "citeflow ns/token", "peer ns/token", "ratio"],
        r.pipeline.rows.map((p) => [
          p.shape,
          `${p.chunkBytes} B`,
          int(p.citeflowNsPerToken),
          int(p.peerNsPerToken),
          fixed(p.ratio),
        ]),
      ),
    );
  }
  if (r["think-tag"]) {
    const t = r["think-tag"];
    add(
      "## Think tags",
      `\`ThinkTagOutputTransformer\` against the AI SDK's \`extractReasoningMiddleware({ tagName: "think" })\`, a ${
        fixed(t.bytes / 1e6)
      } MB reasoning transcript cut into chunks of 4, 64 and 1,024 characters (\`benches/think_tag.mjs\`): each event handled as it comes (the goal's measure), all events collected into one array, and both sides through web streams.`,
      table(
        [
          "chunk",
          "handled: ns/chunk (citeflow / AI SDK)",
          "ratio",
          "collected: ns/chunk",
          "ratio",
          "web streams: MB/s",
          "ratio",
        ],
        t.rows.map((x) => [
          `${x.chunk} chars`,
          `${int(x.handledNsPerChunk[0])} / ${int(x.handledNsPerChunk[1])}`,
          fixed(x.handledRatio),
          `${int(x.collectedNsPerChunk[0])} / ${int(x.collectedNsPerChunk[1])}`,
          fixed(x.collectedRatio),
          `${fixed(x.citeflowStreamMBps, 1)} / ${fixed(x.aiSdkStreamMBps, 1)}`,
          fixed(x.streamRatio),
        ]),
      ),
    );
  }
  if (r.citations) {
    const c = r.citations;
    add(
      "## Citations",
      `A ${fixed(c.bytes / 1e6)} MB answer with ${
        int(c.citations)
      } markers (\`benches/citations.mjs\`), against straightforward regular-expression code giving the same results (which, unlike citeflow, does not skip code spans or links).`,
      table(
        ["task", "citeflow ms", "regex ms", "ratio"],
        c.rows.map((x) => [x.name, fixed(x.citeflowMs, 1), fixed(x.regexMs, 1), fixed(x.ratio)]),
      ),
    );
  }
  if (r.setup) {
    add(
      "## Set-up per stream",
      `A decoder with a think-tag transformer and a citation parser, made, given \`data: [DONE]\` and finished, ${
        int(r.setup.streams)
      } times (\`benches/setup.mjs\`): citeflow ${
        fixed(r.setup.citeflowUsPerStream, 1)
      } µs a stream, eventsource-parser and the AI SDK middleware around a stream ${
        fixed(r.setup.peerUsPerStream, 1)
      } µs (ratio ${fixed(r.setup.ratio)}).`,
    );
  }
  if (r.similarity) {
    const s = r.similarity;
    add(
      "## Relevance",
      `Cosine similarity of a query with ${int(s.chunks)} vectors of ${
        int(s.dim)
      } dimensions, keeping those above the threshold (\`benches/similarity.mjs\`): citeflow ${
        fixed(s.oursMs, 1)
      } ms, a plain JS loop ${fixed(s.plainMs, 1)} ms (ratio ${fixed(s.vsPlain)}), LangChain's \`cosineSimilarity\` ${
        fixed(s.langchainMs, 1)
      } ms (ratio ${
        fixed(s.vsLangchain)
      }). A decision-model filter over 100 chunks against a model that takes 50 ms a call: ${int(s.dm.ms)} ms (about ${
        int(s.dm.expectedMs)
      } ms expected from its batches and concurrency).`,
    );
  }
  if (r.csl) {
    const c = r.csl;
    add(
      "## References (CSL)",
      `\`citeflow/csl\` against citeproc-js, the same style and locale XML, each making every source's entry and in-text marker (\`benches/csl.mjs\`). 1,000 APA references, warm: citeflow ${
        int(c.citeflowMs)
      } ms, citeproc-js ${int(c.citeprocMs)} ms (ratio ${
        fixed(c.ratio)
      }). The first bibliography of 10 items in a fresh process (the ratio is the median of the pairs'; the main thread's CPU time is the steadier measure on a busy machine):`,
      table(
        ["style", "citeflow ms", "citeproc-js ms", "ratio", "pairs", "main-thread CPU ratio"],
        c.first.map((f) => [
          f.style,
          int(f.citeflowMs),
          int(f.citeprocMs),
          fixed(f.ratio, 1),
          range(f.ratioRange),
          f.cpuRatio === null ? "—" : fixed(f.cpuRatio, 1),
        ]),
      ),
      `The CSL module: ${int(c.bytes)} B, ${int(c.gzipBytes)} B gzip; importing it takes ${
        int(c.loadMs)
      } ms and the first render after that ${int(c.firstRenderMs)} ms (fresh processes, median of 3).`,
    );
  }
  if (r["csl-document"]) {
    const d = r["csl-document"];
    add(
      "## Citations in documents (CslDocument)",
      `\`CslDocument\` against citeproc-js's \`processCitationCluster\`, same process, same style and locale XML (\`benches/csl_document.mjs\`): a document of ${d.clusters} clusters built one cluster at a time, then one cluster in its middle replaced.`,
      table(
        ["style", "build: citeflow ms", "citeproc-js ms", "ratio", "one edit: citeflow ms", "citeproc-js ms", "ratio"],
        d.rows.map((x) => [
          x.style,
          fixed(x.build[0], 1),
          fixed(x.build[1], 1),
          fixed(x.buildRatio),
          fixed(x.edit[0], 1),
          fixed(x.edit[1], 1),
          fixed(x.editRatio),
        ]),
      ),
      `The wasm memory over 10,000 edits of a document kept at about 100 clusters, after each 2,500: ${
        d.memoryBytes.map((b) => `${fixed(b / 1048576, 1)} MiB`).join(", ")
      }.`,
    );
  }
  if (r["page-bytes"]) {
    const b = r["page-bytes"];
    const kb = (x) => `${fixed(x / 1000, 1)} KB`;
    add(
      "## What a page fetches",
      `Three small pages built with Vite 8 and no configuration from the packed package, served gzip -${b.gzipLevel} and loaded in headless Chromium until they show their result; the bytes are the encoded bodies of every response but the model's answer (\`benches/page_bytes.mjs\`).`,
      table(
        ["page", "fetched", "wasm", "js", "wasm modules", "goal", "moonshot"],
        b.pages.map((p) => [
          p.name,
          kb(p.total),
          kb(p.byKind.wasm),
          kb(p.byKind.js),
          Object.entries(p.wasm).map(([m, x]) => `${m} ${kb(x)}`).join(", ") || "none",
          `≤ ${kb(p.goal)}`,
          `≤ ${kb(p.moonshot)}`,
        ]),
      ),
    );
  }
  if (r.startup) {
    const s = r.startup;
    add(
      "## Size and start-up",
      `Node, fresh processes, medians of ${s.runs} (\`benches/startup.mjs\`).`,
      table(
        ["wasm module", "bytes", "gzip", "compile + instantiate"],
        Object.entries(s.modules).map((
          [name, m],
        ) => [name, int(m.bytes), int(m.gzipBytes), `${fixed(m.instantiateMs)} ms`]),
      ),
    );
    add(table(["", "ms (range)"], [
      [
        `\`import "citeflow"\` (${s.importJs.files} JS files, ${int(s.importJs.bytes)} B)`,
        `${fixed(s.importMs)} (${range(s.importRangeMs)})`,
      ],
      [
        `\`import "citeflow/stream"\` (${s.streamImportJs.files} JS files, ${int(s.streamImportJs.bytes)} B)`,
        `${fixed(s.streamImportMs)} (${range(s.streamImportRangeMs)})`,
      ],
      [
        `\`import "eventsource-parser"\`: what any first import costs here`,
        `${fixed(s.peerImportMs)} (${range(s.peerImportRangeMs)})`,
      ],
      [
        "the first call into the core right after the import",
        `${fixed(s.firstCoreCallMs)} (${range(s.firstCoreCallRangeMs)}), of which compile + instantiate ${
          fixed(s.firstCoreCallWasmMs)
        }`,
      ],
      [
        `the same call ${s.idleMs} ms after the import`,
        `${fixed(s.firstCoreCallAfterIdleMs)} (${range(s.firstCoreCallAfterIdleRangeMs)})`,
      ],
      [
        'the first streaming object right after `import "citeflow/stream"`',
        `${fixed(s.firstStreamCallMs)} (${range(s.firstStreamCallRangeMs)}), of which compile + instantiate ${
          fixed(s.firstStreamCallWasmMs)
        }`,
      ],
    ]));
  }
  const rows = goals(run.results);
  if (rows.length > 0) {
    add(
      "## Goals",
      "What the streaming engine is held to (`benches/goals.mjs`), and what this run measured:",
      table(
        ["goal", "measured", "met"],
        rows.map(([goal, measured, met]) => [goal, measured, met === null ? "reported" : met ? "yes" : "no"]),
      ),
    );
  }
  add(
    "## Method",
    "- `make bench` runs every benchmark above in one Node process (`benches/run.mjs`), writes the results to `benches/results/latest.json` and this page from them; `node benches/<name>.mjs` runs one and prints its table.",
    "- Each comparison runs the same job on both sides and checks that they agree (the same events, citations, entries or kept chunks) before it is timed: a faster wrong answer cannot count.",
    "- After a warm-up run of each, the two sides are timed in turns, the order swapped every pair, and the ratio is the median of the pairs' ratios (`benches/timing.mjs`): a busy spell on a shared machine slows one pair, not one side. The cosine filter and the 1,000 CSL references time each side's runs in a row and divide the medians. Times are medians over the runs.",
    "- Start-up figures come from fresh processes (each one's first `import()`); the CSL fresh-process figures also report the main thread's CPU time (Linux), steadier than wall time when other work competes for the cores.",
    "- The peers are what a user would otherwise pick: eventsource-parser and the AI SDK's own middleware for streams, regular-expression code for markers, a plain loop and LangChain for cosine similarity, citeproc-js for CSL.",
    "- `node benches/ab.mjs <pkg A> <pkg B>` times two builds of the package against each other the same way, on the streaming benchmarks (copy `pkg/` aside before a change).",
    "- The figures move with the machine and its load: compare ratios from one run, and runs on one machine.",
  );
  return out.join("\n").replace(/\n+$/, "\n");
}

/** Reads a results file and writes the page; returns the page's path. */
export function writePerformancePage(
  results = `${root}benches/results/latest.json`,
  out = `${root}docs/performance.md`,
) {
  writeFileSync(out, performancePage(JSON.parse(readFileSync(results, "utf8"))));
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = args.find((a) => a.startsWith("--out="))?.slice(6);
  const input = args.find((a) => !a.startsWith("--"));
  console.log(`performance: wrote ${writePerformancePage(input ?? undefined, out ?? undefined)}`);
}
