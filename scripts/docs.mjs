#!/usr/bin/env node
// The documentation site: `make docs` (or `node scripts/docs.mjs [--out=DIR]`) writes one
// folder, target/docs/ by default, that opens offline from file:// (every link relative,
// nothing fetched from elsewhere):
//   index.html   the start page: the guides, the two API references, the demo
//   api/         the JS API, rendered by TypeDoc from the four .d.ts entry points
//                (typedoc.json), with every guide of docs/ as a page (api/documents/<name>.html)
//   rust/        the Rust API, rendered by rustdoc (`cargo doc --no-deps`) with the features a
//                Rust app picks: `csl` and, for wasm32, `web`
// tests/docs/site.test.mjs builds it into a temporary folder and checks every link.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The order guides are listed in on the start page; any other guide follows, by file name. */
const GUIDE_ORDER = [
  "streaming",
  "citations",
  "providers",
  "relevance",
  "csl",
  "csl-suite",
  "citeformer",
  "ai-sdk",
  "invokers",
  "rust",
  "runtimes",
  "security",
  "errors",
  "performance",
  "build",
  "demo",
];

/** The Rust features the reference is built with, and the target `web` needs. */
export const RUSTDOC_FEATURES = "web,csl";
const RUSTDOC_TARGET = "wasm32-unknown-unknown";

/** The guides: `{ name, title, file }` for each docs/*.md, in the start page's order. */
export function guides(dir = join(root, "docs")) {
  const rank = (name) => (GUIDE_ORDER.includes(name) ? GUIDE_ORDER.indexOf(name) : GUIDE_ORDER.length);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .map((file) => {
      const name = file.slice(0, -3);
      const title = /^# (.+)$/m.exec(readFileSync(join(dir, file), "utf8"))?.[1].trim() ?? name;
      return { name, title, file: join(dir, file) };
    })
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The start page. */
function indexPage(list) {
  const item = (href, text, note = "") => `<li><a href="${escape(href)}">${escape(text)}</a>${note}</li>`;
  const modules = [
    ["citeflow", "index", "transformers, citations, Citeformer, invokers, relevance, references"],
    ["citeflow/stream", "stream", "the streaming surface alone, on the small module"],
    ["citeflow/csl", "csl", "the CSL engine: references, CslDocument"],
    ["citeflow/ai-sdk", "ai-sdk", "the AI SDK middleware"],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>citeflow documentation</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { margin-bottom: 0.25rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
code { font: 0.9em ui-monospace, monospace; } li { margin: 0.2rem 0; } .note { color: #555; }
</style>
</head>
<body>
<h1>citeflow</h1>
<p>Cited, streamed language-model answers: a Rust library compiled to WebAssembly and shipped as
one npm package for browsers, Node, Deno, Bun and Cloudflare Workers, and a Rust crate with a
<code>web</code> face for Rust web apps.</p>
<h2>Guides</h2>
<ul>
${list.map((g) => item(`api/documents/${g.name}.html`, g.title)).join("\n")}
</ul>
<h2>JS API reference</h2>
<ul>
${
    modules.map(([spec, mod, what]) => item(`api/modules/${mod}.html`, spec, ` <span class="note">${what}</span>`))
      .join("\n")
  }
</ul>
<h2>Rust API reference</h2>
<ul>
${
    item(
      "rust/citeflow/index.html",
      "citeflow (crate)",
      ` <span class="note">features <code>${RUSTDOC_FEATURES}</code>, target <code>${RUSTDOC_TARGET}</code></span>`,
    )
  }
</ul>
<h2>The demo</h2>
<p><code>make demo</code> in a clone of the repository serves the demo page with a small language
model running on the machine, offline: ${
    item("api/documents/demo.html", "how to run it and what it runs on").replace(/^<li>|<\/li>$/g, "")
  }.</p>
</body>
</html>
`;
}

/** Builds the site into `out` (emptied first). */
export function buildSite({ out = join(root, "target", "docs"), log = console.log } = {}) {
  out = resolve(out);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const list = guides();

  // The JS API and the guides. TypeDoc's own check of undocumented exports (typedoc.json's
  // `validation`) runs where the test command runs it; here its warnings are not printed.
  execFileSync(
    process.execPath,
    [
      join(root, "node_modules", "typedoc", "bin", "typedoc"),
      ...["--options", join(root, "typedoc.json")],
      ...["--out", join(out, "api")],
      ...list.flatMap((g) => ["--projectDocuments", g.file]),
      ...["--plugin", join(root, "scripts", "docs-typedoc-plugin.mjs")],
      ...["--logLevel", "Error"],
    ],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
  );

  // The Rust API: the command and flags `make test-rust` uses, so its build in target/ is reused.
  const targetDir = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
  execFileSync(
    "cargo",
    ["doc", "--quiet", "--no-deps", "--features", RUSTDOC_FEATURES, "--target", RUSTDOC_TARGET],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, RUSTDOCFLAGS: "-D warnings" } },
  );
  const rustdoc = join(targetDir, RUSTDOC_TARGET, "doc");
  if (!existsSync(join(rustdoc, "citeflow", "index.html"))) throw new Error(`rustdoc wrote no ${rustdoc}/citeflow`);
  cpSync(rustdoc, join(out, "rust"), { recursive: true });
  // rustdoc's help and settings pages link the folder's index, which `--no-deps` does not write.
  writeFileSync(
    join(out, "rust", "index.html"),
    `<!doctype html><meta charset="utf-8"><title>citeflow: Rust API</title>` +
      `<meta http-equiv="refresh" content="0; url=citeflow/index.html"><a href="citeflow/index.html">citeflow</a>\n`,
  );

  writeFileSync(join(out, "index.html"), indexPage(list));
  log(`docs: ${out}/index.html (${list.length} guides, the JS API, the Rust API)`);
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv.find((a) => a.startsWith("--out="))?.slice(6);
  buildSite(out ? { out } : {});
}
