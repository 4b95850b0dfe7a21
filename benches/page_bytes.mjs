// What a page pays to use the package, measured as a browser fetches it (issue 49's goals
// table): three small pages (benches/pages/), each the smallest a user would write, are built
// with Vite 8 and no configuration against the packed package (`npm pack pkg/`), served
// gzip-compressed as a static host serves them, and loaded in headless Chromium until each shows
// its result. Every response's encoded (on-the-wire) body is summed, by kind: wasm, js, other.
// The model's answer (the invoker pages' /v1 request) is data, not code: reported, not counted.
//
//   stream      citeflow/stream: a constant answer streamed through think tags and citations
//   invoker     citeflow: buildLMInvoker against a scripted local model → events → citations
//   references  the invoker page plus an APA reference list (renderReferences)
//
// Wasm modules are told apart by their bytes (Vite renames the files). Vite 8 comes from
// scripts/bundlers-setup.sh (target/bundlers/). Part of `make bench` (benches/run.mjs).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { handleLocalModel } from "../scripts/local-model.mjs";
import { launch } from "../tests/smoke/engines/chromium.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAGES_DIR = join(ROOT, "benches", "pages");
const VITE8 = join(ROOT, "target", "bundlers", "node_modules", "vite8", "bin", "vite.js");
/** Where the pages are built (`<page>/dist/`): the test reads the served files back from here. */
export const WORK = join(ROOT, "target", "page-bytes");
const TIMEOUT = 60_000;
const KB = 1000;

/** The pages, what each shows when it is done (an element's id), and the goal and moonshot. */
export const PAGES = [
  {
    name: "stream",
    what: "an answer streamed through think tags and citations (citeflow/stream)",
    shows: "citations",
    goal: 60 * KB,
    moonshot: 40 * KB,
  },
  {
    name: "invoker",
    what: "a model's answer through citeflow with an invoker (fetch → events → citations)",
    shows: "citations",
    goal: 200 * KB,
    moonshot: 150 * KB,
  },
  {
    name: "references",
    what: "the invoker page plus an APA reference list",
    shows: "references",
    goal: 300 * KB,
    moonshot: 220 * KB,
  },
];
/** The CSL module alone, read from the references page's network log. */
export const CSL_GOAL = { goal: 100 * KB, moonshot: 90 * KB };

const WASM = {
  core: "pkg/gen/citeflow_bg.wasm",
  stream: "pkg/gen/stream/citeflow_stream_bg.wasm",
  full: "pkg/gen/stream-full/citeflow_stream_full_bg.wasm",
  csl: "pkg/gen/csl/citeflow_csl_bg.wasm",
};

// What a static host compresses (the text types and wasm), at the level of a build's
// precompressed files; everything else goes as it is.
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
};
const GZIP_LEVEL = 9;

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const kb = (bytes) => `${(bytes / KB).toFixed(1)} KB`;

/** `npm pack pkg/` into WORK; the tarball's path. */
async function pack() {
  mkdirSync(WORK, { recursive: true });
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", join(ROOT, "pkg"), "--pack-destination", WORK, "--json", "--loglevel=error"],
    { encoding: "utf8" },
  );
  return join(WORK, JSON.parse(stdout)[0].filename);
}

/** A fresh copy of the page with the packed package in its node_modules, built by Vite 8. */
async function build(name, tarball) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(PAGES_DIR, name), dir, { recursive: true });
  cpSync(join(PAGES_DIR, "shared"), dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `page-${name}`, private: true, type: "module" }));
  const pkg = join(dir, "node_modules", "citeflow");
  mkdirSync(pkg, { recursive: true });
  await promisify(execFile)("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
  const t0 = performance.now();
  await promisify(execFile)(process.execPath, [VITE8, "build", "--logLevel", "error"], { cwd: dir, timeout: TIMEOUT });
  return { dir: join(dir, "dist"), buildMs: performance.now() - t0 };
}

/**
 * A static server over `root` that sends html, js, css and wasm gzip-compressed (each file
 * compressed once), with the scripted local model (no delay between tokens) at /v1.
 */
function serve(root) {
  const compressed = new Map();
  const server = createServer(async (req, res) => {
    if (await handleLocalModel(req, res, { delayMs: 0 })) return;
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path));
    if (!file.startsWith(root + sep) || !existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const type = TYPES[extname(file)];
    // With its length, as a static host sends a file (not chunked, whose framing would count).
    const headers = { "content-type": type ?? "application/octet-stream", "cache-control": "no-store" };
    if (!type) {
      const body = readFileSync(file);
      res.writeHead(200, { ...headers, "content-length": body.length }).end(body);
      return;
    }
    if (!compressed.has(file)) compressed.set(file, gzipSync(readFileSync(file), { level: GZIP_LEVEL }));
    const body = compressed.get(file);
    res.writeHead(200, { ...headers, "content-encoding": "gzip", "content-length": body.length }).end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const kindOf = (
  path,
) => (path.startsWith("/v1/") ? "api" : path.endsWith(".wasm") ? "wasm" : path.endsWith(".js") ? "js" : "other");

/**
 * Loads `url` in a fresh context until the page shows its result (`#<shows>` filled) or an
 * error, then until the network is idle; every response with its encoded body size.
 */
async function load(browser, url, page, wasmNames) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const pending = [];
  tab.on("requestfinished", (request) => {
    pending.push((async () => {
      const response = await request.response();
      const sizes = await request.sizes();
      const body = await response.body();
      const path = new URL(request.url()).pathname;
      return {
        path,
        kind: kindOf(path),
        status: response.status(),
        encoding: response.headers()["content-encoding"] ?? "identity",
        encodedBytes: sizes.responseBodySize,
        headerBytes: sizes.responseHeadersSize,
        bodyBytes: body.length,
        module: path.endsWith(".wasm") ? (wasmNames.get(sha(body)) ?? "unknown") : undefined,
      };
    })());
  });
  const errors = [];
  tab.on("pageerror", (e) => errors.push(String(e)));
  const text = (id) => tab.evaluate((i) => document.getElementById(i)?.textContent ?? "", id);
  try {
    await tab.goto(url, { timeout: TIMEOUT });
    await tab.waitForFunction(
      (ids) => ids.some((id) => document.getElementById(id)?.textContent),
      [page.shows, "error"],
      { timeout: TIMEOUT },
    );
    await tab.waitForLoadState("networkidle", { timeout: TIMEOUT });
    const shown = { answer: await text("answer"), citations: await text("citations"), error: await text("error") };
    if (page.shows !== "citations") shown[page.shows] = await text(page.shows);
    if (errors.length) shown.error = [shown.error, ...errors].filter(Boolean).join("; ");
    return { shown, responses: await Promise.all(pending) };
  } finally {
    await context.close();
  }
}

/** Sums a page's responses: the total and per kind (the model's answer apart) and per wasm module. */
function tally(responses) {
  const byKind = { wasm: 0, js: 0, other: 0, api: 0 };
  const wasm = {};
  for (const r of responses) {
    byKind[r.kind] += r.encodedBytes;
    if (r.module) wasm[r.module] = (wasm[r.module] ?? 0) + r.encodedBytes;
  }
  const total = byKind.wasm + byKind.js + byKind.other;
  const headerBytes = responses.filter((r) => r.kind !== "api").reduce((a, r) => a + r.headerBytes, 0);
  return { total, byKind, wasm, headerBytes };
}

/** Builds, serves and loads each page (in sequence, one browser); `runs` is taken and unused: bytes do not vary. */
export async function run(_options = {}) {
  if (!existsSync(VITE8)) {
    throw new Error("page bytes: Vite 8 is not installed; run `bash scripts/bundlers-setup.sh` first");
  }
  const wasmNames = new Map(Object.entries(WASM).map(([name, file]) => [sha(readFileSync(join(ROOT, file))), name]));
  const tarball = await pack();
  const pages = [];
  const browser = await launch(TIMEOUT);
  try {
    for (const page of PAGES) {
      const { dir, buildMs } = await build(page.name, tarball);
      const server = await serve(dir);
      try {
        const { shown, responses } = await load(browser, `http://127.0.0.1:${server.address().port}/`, page, wasmNames);
        pages.push({ ...page, buildMs, shown, responses, ...tally(responses) });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  } finally {
    await browser.close();
  }
  return { name: "page-bytes", gzipLevel: GZIP_LEVEL, pages };
}

const fetched = (p) => Object.keys(p.wasm);
const problem = (
  p,
) => (p.shown.error ? ` (page error: ${p.shown.error})` : !p.shown[p.shows] ? " (showed nothing)" : "");

/** The goals as rows of `[goal, measured, met]` (met: true or false), for benches/goals.mjs. */
export function goals(result) {
  const rows = [];
  const byName = Object.fromEntries(result.pages.map((p) => [p.name, p]));
  for (const p of result.pages) {
    const shown = !p.shown.error && p.shown[p.shows] !== "";
    rows.push([
      `${p.name} page, ${p.what}: ≤ ${kb(p.goal)} gzip fetched (moonshot ≤ ${kb(p.moonshot)})`,
      `${kb(p.total)}: wasm ${kb(p.byKind.wasm)} (${fetched(p).join(", ") || "none"}), js ${kb(p.byKind.js)}, other ${
        kb(p.byKind.other)
      }; moonshot ${p.total <= p.moonshot ? "met" : "not met"}${problem(p)}`,
      shown && p.total <= p.goal,
    ]);
  }
  const csl = byName.references?.wasm.csl;
  if (byName.references) {
    rows.push([
      `the CSL module alone, as the references page fetches it: ≤ ${kb(CSL_GOAL.goal)} gzip (moonshot ≤ ${
        kb(CSL_GOAL.moonshot)
      })`,
      csl === undefined ? "not fetched" : `${kb(csl)}; moonshot ${csl <= CSL_GOAL.moonshot ? "met" : "not met"}`,
      csl !== undefined && csl <= CSL_GOAL.goal,
    ]);
  }
  const stream = byName.stream;
  if (stream) {
    const extra = fetched(stream).filter((m) => m === "core" || m === "full");
    rows.push([
      "a page that only parses citations (the stream page) fetches neither the core nor the full streaming wasm",
      `fetched: ${fetched(stream).join(", ") || "no wasm"}`,
      extra.length === 0 && stream.wasm.stream !== undefined,
    ]);
  }
  const noRefs = result.pages.filter((p) => p.name !== "references");
  if (noRefs.length) {
    const withCsl = noRefs.filter((p) => p.wasm.csl !== undefined).map((p) => p.name);
    rows.push([
      "a page that never renders references never fetches the CSL module",
      withCsl.length ? `fetched by: ${withCsl.join(", ")}` : `not fetched by: ${noRefs.map((p) => p.name).join(", ")}`,
      withCsl.length === 0,
    ]);
  }
  return rows;
}

export function print({ gzipLevel, pages }) {
  console.log(
    `Bytes a page fetches (Vite 8 build, no config; served gzip -${gzipLevel}; headless Chromium, encoded bodies):`,
  );
  console.log(
    "| page | fetched | wasm | js | other | wasm modules (gzip) | goal | moonshot | model's answer (not counted) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const p of pages) {
    const modules = Object.entries(p.wasm).map(([m, b]) => `${m} ${kb(b)}`).join(", ") || "none";
    console.log(
      `| ${p.name}${problem(p)} | ${kb(p.total)} | ${kb(p.byKind.wasm)} | ${kb(p.byKind.js)} | ${
        kb(p.byKind.other)
      } | ${modules} | ≤ ${kb(p.goal)} | ≤ ${kb(p.moonshot)} | ${kb(p.byKind.api)} |`,
    );
  }
  const builds = pages.map((p) => `${p.name} ${(p.buildMs / 1000).toFixed(1)} s`).join(", ");
  const headers = pages.map((p) => `${p.name} ${kb(p.headerBytes)}`).join(", ");
  console.log(`Vite 8 builds: ${builds}; response headers, not counted: ${headers}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run();
  print(result);
  for (const [goal, measured, met] of goals(result)) console.log(`| ${goal} | ${measured} | ${met ? "yes" : "no"} |`);
}
