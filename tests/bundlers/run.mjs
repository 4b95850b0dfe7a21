#!/usr/bin/env node
// The package in the web toolchains users build with: `npm pack`s pkg/, builds the minimal app
// of each toolchain (tests/bundlers/apps/) against the packed tarball, serves it, and drives it
// in headless Chromium. Each row checks what a user sees: the core call and the streamed
// citation on the page at load, the APA references after the button is pressed, and, in the
// network log, the core and streaming wasm fetched at load and the CSL wasm only after the press (wasm files
// are told apart by their bytes, since bundlers rename them). The "no recipe" rows check that a
// toolchain the package cannot serve unaided gets a NOT_INITIALIZED error saying what to do.
//
// The toolchains come from scripts/bundlers-setup.sh (target/bundlers/node_modules); apps are
// built in sequence under target/bundlers/apps/. Usage: node tests/bundlers/run.mjs [--only=a,b] [--verbose]
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";
import { launch } from "../smoke/engines/chromium.mjs";
import { spawnGroup, within } from "../smoke/engines/processes.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APPS = fileURLToPath(new URL("apps", import.meta.url));
const TOOLS = join(ROOT, "target", "bundlers");
const WORK = join(TOOLS, "apps");
const BUILD_TIMEOUT = 300_000;
const PAGE_TIMEOUT = 60_000;
const VERBOSE = process.argv.includes("--verbose");

const tool = (...path) => join(TOOLS, "node_modules", ...path);
const VITE7 = tool("vite", "bin", "vite.js");
const VITE8 = tool("vite8", "bin", "vite.js");
const ESBUILD = tool("esbuild", "bin", "esbuild");
const ROLLUP = tool("rollup", "dist", "bin", "rollup");
const NEXT = tool("next", "dist", "bin", "next");
const NEXT_START = [NEXT, "start", "-p", "PORT", "-H", "127.0.0.1"];
const APP_EDGE_ROUTE = { path: "api/edge", fn: "/api/edge/route" };
const PAGES_EDGE_ROUTE = { path: "api/edge-pages", fn: "/api/edge-pages" };

// What every page must show: what the same scenario gives with the package in Node, unbundled
// (this test is about bundling; the results themselves are tested elsewhere).
const EXPECTED = await (async () => {
  const lib = await import("../../pkg/entry/node.js");
  const { coreResults, referenceText } = await import("./apps/scenario.js");
  const expected = { ...coreResults(lib), references: await referenceText(lib) };
  if (!expected.core || !expected.citation || !expected.references.includes("Loyrette")) {
    throw new Error(`the scenario gives nothing to compare in Node: ${JSON.stringify(expected)}`);
  }
  return expected;
})();

// One row per toolchain and mode. `app` names the folder under apps/; `build` runs in the
// app's copy; `serve` is "dist" (a static server over the build output) or a command that
// serves on PORT; `page` says where the page's HTML goes; `expectError` marks a row whose page
// must show a NOT_INITIALIZED error containing that text instead of results; `edgeRoutes` are
// routes in the Edge runtime (Next.js; `path` to fetch, `fn` its name in the build's middleware
// manifest) whose JSON must hold the same results.
const CASES = [
  {
    name: "vite7-build",
    label: "Vite 7 build",
    app: "vite",
    page: "index.html",
    build: [VITE7, "build"],
    serve: "dist",
  },
  {
    name: "vite7-dev",
    label: "Vite 7 dev (optimizeDeps.exclude)",
    app: "vite",
    page: "index.html",
    serve: [VITE7, "--port", "PORT", "--strictPort", "--host", "127.0.0.1"],
  },
  {
    name: "vite7-dev-plain",
    label: "Vite 7 dev, no recipe: clear error",
    app: "vite",
    drop: ["vite.config.js"],
    page: "index.html",
    serve: [VITE7, "--port", "PORT", "--strictPort", "--host", "127.0.0.1"],
    expectError: "optimizeDeps",
  },
  {
    name: "vite8-build",
    label: "Vite 8 build, no config",
    app: "vite",
    drop: ["vite.config.js"],
    page: "index.html",
    build: [VITE8, "build"],
    serve: "dist",
  },
  {
    name: "vite8-dev",
    label: "Vite 8 dev, no config",
    app: "vite",
    drop: ["vite.config.js"],
    page: "index.html",
    serve: [VITE8, "--port", "PORT", "--strictPort", "--host", "127.0.0.1"],
  },
  {
    name: "webpack",
    label: "webpack 5, no config but entry/output",
    app: "webpack",
    page: "dist/index.html",
    build: [tool("webpack-cli", "bin", "cli.js")],
    serve: "dist",
  },
  {
    name: "esbuild",
    label: "esbuild (file loader + init(url), setCslWasmUrl)",
    app: "esbuild",
    page: "dist/index.html",
    build: [ESBUILD, "main.js", "--bundle", "--loader:.wasm=file", "--outdir=dist"],
    serve: "dist",
    oneBundle: true,
  },
  {
    name: "esbuild-plain",
    label: "esbuild, no recipe: clear error",
    app: "esbuild-plain",
    page: "dist/index.html",
    build: [ESBUILD, "main.js", "--bundle", "--outdir=dist", "--log-level=error"],
    serve: "dist",
    expectError: "--loader:.wasm=file",
  },
  {
    name: "esbuild-node",
    label: "esbuild for Node (bytes to init, setCslWasmUrl)",
    app: "esbuild-node",
    build: [
      ESBUILD,
      "main.js",
      "--bundle",
      "--platform=node",
      "--target=node20",
      "--format=esm",
      "--loader:.wasm=binary",
      "--outfile=dist/main.mjs",
      "--log-level=error",
    ],
    node: "dist/main.mjs",
  },
  {
    name: "rollup",
    label: "Rollup (node-resolve + import-meta-assets)",
    app: "rollup",
    page: "dist/index.html",
    build: [ROLLUP, "-c", "--silent"],
    serve: "dist",
  },
  {
    name: "rollup-plain",
    label: "Rollup, no assets plugin: clear error",
    app: "rollup",
    page: "dist/index.html",
    build: [ROLLUP, "-c", "rollup-no-assets.config.mjs", "--silent"],
    serve: "dist",
    expectError: "did not emit it",
  },
  {
    name: "next",
    label: "Next.js 16 (Turbopack; server render + client + edge route), no config",
    app: "next",
    build: [NEXT, "build"],
    serve: NEXT_START,
    server: true,
    // The App Router's edge route only: the Pages Router's (the webpack row's) would add a
    // second router's build to the row's time.
    drop: ["pages/api/edge-pages.js"],
    edgeRoutes: [APP_EDGE_ROUTE],
  },
  {
    name: "next-webpack",
    label: "Next.js 16 --webpack (server render + client + edge route), no config",
    app: "next",
    build: [NEXT, "build", "--webpack"],
    serve: NEXT_START,
    server: true,
    // Next.js 16.4's webpack build fails on any App Router route handler with runtime "edge"
    // (an empty one too: it never writes the route's client reference manifest), so this row
    // tests the Pages Router's edge API route.
    drop: ["app/api/edge/route.js"],
    edgeRoutes: [PAGES_EDGE_ROUTE],
  },
];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs `command ...args` in `cwd`; resolves with its output, rejects with its tail. */
function run([command, ...args], cwd, timeout) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const keep = (d) => {
      out = (out + d).slice(-6000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.on("error", (e) => reject(e));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else {reject(
          new Error(
            `${[command, ...args].map((a) => a.replace(TOOLS, "…")).join(" ")} exited ${code ?? signal}:\n${out}`,
          ),
        );}
    });
  });
}

async function waitForHttp(url, ms, output) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${ms} ms; server output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A fresh copy of the case's app with the packed package installed in its node_modules. */
function prepare(c, tarball) {
  const dir = join(WORK, c.name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(APPS, c.app), dir, { recursive: true });
  cpSync(join(APPS, "scenario.js"), join(dir, "scenario.js"));
  for (const file of c.drop ?? []) rmSync(join(dir, file));
  const pkg = join(dir, "node_modules", "citeflow");
  mkdirSync(pkg, { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
  if (!existsSync(join(dir, "package.json"))) {
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: `app-${c.name}`, private: true, type: "module" }) + "\n",
    );
  }
  return dir;
}

function writePage(dir, c) {
  if (!c.page) return;
  const html = readFileSync(join(APPS, "page.html"), "utf8").replace("SCRIPT", "/main.js");
  mkdirSync(join(dir, c.page, ".."), { recursive: true });
  writeFileSync(join(dir, c.page), html);
}

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * Opens `url` and checks the page. Returns the problems found (empty: the row is green).
 * Wasm responses are recognised by their bytes against the packed package's files.
 */
async function drive(browser, url, c, wasmHashes) {
  const problems = [];
  const context = await browser.newContext();
  const page = await context.newPage();
  let phase = "load";
  const phases = new Map();
  const seen = [];
  const bodies = [];
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("request", (req) => phases.set(req, phase));
  page.on("response", (res) => {
    bodies.push(
      res.body().then((body) => {
        const which = wasmHashes.get(sha(body));
        if (which) seen.push({ which, phase: phases.get(res.request()), url: res.url() });
        // The bundled APA style (a file of its own, loaded on demand) by a text only it holds.
        if (body.includes(APA_STYLE_MARK)) {
          seen.push({ which: "apa-style", phase: phases.get(res.request()), url: res.url() });
        }
      }, () => {}),
    );
  });
  const text = (id) => page.evaluate((i) => document.getElementById(i)?.textContent ?? "", id);
  const settle = async () => {
    await page.waitForLoadState("networkidle", { timeout: PAGE_TIMEOUT });
    await Promise.all(bodies);
  };
  try {
    await page.goto(url, { timeout: PAGE_TIMEOUT });
    await page.waitForFunction(() => ["core", "error"].some((id) => document.getElementById(id)?.textContent), null, {
      timeout: PAGE_TIMEOUT,
    });
    await settle();
    const error = await text("error");
    if (VERBOSE && error) console.log(`     [${c.name}] page error: ${error}`);
    if (c.expectError) {
      if (!error.includes("NOT_INITIALIZED") || !error.includes(c.expectError)) {
        problems.push(
          `expected a NOT_INITIALIZED error mentioning ${JSON.stringify(c.expectError)}, page shows ${
            JSON.stringify(error)
          }`,
        );
      }
      return problems;
    }
    if (error) problems.push(`page error: ${error}`);
    for (const id of ["core", "citation"]) {
      const got = await text(id);
      if (got !== EXPECTED[id]) {
        problems.push(`#${id}: ${JSON.stringify(got)}, expected ${JSON.stringify(EXPECTED[id])}`);
      }
    }
    if (!seen.some((s) => s.which === "core")) problems.push("the core wasm was not fetched at load");
    if (!seen.some((s) => s.which === "stream")) problems.push("the streaming wasm was not fetched at load");
    if (!seen.some((s) => s.which === "full")) {
      problems.push("the full streaming wasm was not fetched at load (init() of citeflow loads it)");
    }
    const early = seen.filter((s) => s.which === "csl");
    if (early.length) problems.push(`the CSL wasm was fetched before any reference was rendered (${early[0].url})`);
    if (problems.length) return problems;

    phase = "render";
    await page.click("#render", { timeout: PAGE_TIMEOUT });
    await page.waitForFunction(
      () => ["references", "error"].some((id) => document.getElementById(id)?.textContent),
      null,
      { timeout: PAGE_TIMEOUT },
    );
    await settle();
    const references = await text("references");
    if (references !== EXPECTED.references) {
      problems.push(
        `#references: ${JSON.stringify(references)} (error: ${JSON.stringify(await text("error"))}), expected ${
          JSON.stringify(EXPECTED.references)
        }`,
      );
    }
    if (VERBOSE) {
      for (const s of seen) console.log(`     [${c.name}] ${s.which} wasm fetched at ${s.phase}: ${s.url}`);
    }
    const csl = seen.filter((s) => s.which === "csl");
    if (csl.length !== 1 || csl[0].phase !== "render") {
      problems.push(`the CSL wasm should be fetched once, after the press; seen ${JSON.stringify(csl)}`);
    }
    // A bundler that splits chunks ships the style as its own, fetched when first rendered with.
    const style = seen.filter((s) => s.which === "apa-style");
    if (!c.oneBundle && !(style.length === 1 && style[0].phase === "render")) {
      problems.push(`the APA style should be fetched once, after the press; seen ${JSON.stringify(style)}`);
    }
    return problems;
  } catch (e) {
    problems.push(`${e.message.split("\n")[0]} (page: ${JSON.stringify(await text("error").catch(() => ""))})`);
    return problems;
  } finally {
    if (pageErrors.length && !c.expectError) problems.push(`uncaught in the page: ${pageErrors.join("; ")}`);
    await context.close();
  }
}

const APA_STYLE_MARK = "<id>http://www.zotero.org/styles/apa</id>";

/** Next.js: the server's own HTML (no browser) carries what citeflow computed on the server. */
async function serverRendered(url) {
  const html = await (await fetch(url)).text();
  const problems = [];
  const unescape = (s) =>
    s.replace(/&#x27;/g, "'").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(
      /&quot;/g,
      '"',
    );
  const grab = (id) => unescape(html.match(new RegExp(`id="${id}"[^>]*>([^<]*)<`))?.[1] ?? "");
  if (grab("server-core") !== EXPECTED.core) {
    problems.push(`server-rendered core: ${JSON.stringify(grab("server-core"))}`);
  }
  if (grab("server-references") !== EXPECTED.references) {
    problems.push(`server-rendered references: ${JSON.stringify(grab("server-references"))}`);
  }
  return problems;
}

/**
 * Next.js: a route handler with `runtime = "edge"` (app/api/edge/route.js) answers the scenario
 * as JSON, computed in the edge runtime, which may not compile wasm from bytes: the build's
 * middleware manifest must list each of the four modules once as the route's wasm bindings
 * (compiled when the function is deployed; the code imports them as `WebAssembly.Module`s),
 * and none as a plain asset. `next start`'s sandbox would compile bytes with only a warning.
 */
async function edgeRouteProblems(url, dir, route, wasmHashes) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(dir, ".next", "server", "middleware-manifest.json"), "utf8"));
  const fn = manifest.functions[route.fn];
  const which = (files) => files.map((f) => wasmHashes.get(sha(readFileSync(join(dir, ".next", f.filePath)))));
  const bound = which(fn?.wasm ?? []);
  const shipped = which(fn?.assets ?? []).filter(Boolean);
  for (const module of ["core", "stream", "full", "csl"]) {
    const times = bound.filter((b) => b === module).length;
    if (times !== 1) problems.push(`${route.path}: the ${module} wasm is bound ${times} times, expected once`);
    // A wasm file also shipped as a plain asset (for the glue's default URL) would double its size.
    if (shipped.includes(module)) problems.push(`${route.path}: the ${module} wasm is also shipped as an asset`);
  }
  const res = await fetch(url);
  const text = await res.text();
  let got;
  try {
    got = JSON.parse(text);
  } catch {
    return [...problems, `${route.path}: ${res.status}, not JSON: ${text.slice(0, 300)}`];
  }
  if (VERBOSE) console.log(`     ${route.path} (${got.runtime}): ${JSON.stringify(got).slice(0, 200)}`);
  if (got.error) return [...problems, `${route.path}: ${got.error}`];
  if (got.runtime !== "edge-runtime") {
    problems.push(`${route.path}: ran in ${JSON.stringify(got.runtime)}, not the edge runtime`);
  }
  for (const id of ["core", "citation", "references"]) {
    if (got[id] !== EXPECTED[id]) {
      problems.push(`${route.path} ${id}: ${JSON.stringify(got[id])}, expected ${JSON.stringify(EXPECTED[id])}`);
    }
  }
  return problems;
}

/** A Node program's report (its last line): waiting for init, then the same results as a page. */
function nodeProblems(output) {
  const problems = [];
  let got;
  try {
    got = JSON.parse(output.trim().split("\n").at(-1));
  } catch {
    return [`no report from the program; it printed:\n${output}`];
  }
  if (VERBOSE) console.log(`     before init: ${got.beforeInit}\n     init(): ${got.initWithout}`);
  if (!got.beforeInit.startsWith("NOT_INITIALIZED")) {
    problems.push(`before init: ${got.beforeInit}, expected NOT_INITIALIZED`);
  }
  if (!got.initWithout.startsWith("NOT_INITIALIZED") || !got.initWithout.includes("init(")) {
    problems.push(`init() without the wasm: ${got.initWithout}`);
  }
  for (const id of ["core", "citation", "references"]) {
    if (got[id] !== EXPECTED[id]) {
      problems.push(`${id}: ${JSON.stringify(got[id])}, expected ${JSON.stringify(EXPECTED[id])}`);
    }
  }
  return problems;
}

async function runCase(browser, c, tarball, wasmHashes) {
  const dir = prepare(c, tarball);
  const started = Date.now();
  let buildMs = 0;
  const intoOutput = c.page?.startsWith("dist/"); // written after the build, which clears dist/
  if (!intoOutput) writePage(dir, c);
  if (c.build) {
    await run(c.build, dir, BUILD_TIMEOUT);
    buildMs = Date.now() - started;
  }
  if (intoOutput) writePage(dir, c);
  if (c.node) {
    return {
      problems: nodeProblems(await run([process.execPath, c.node], dir, PAGE_TIMEOUT)),
      buildMs,
      totalMs: Date.now() - started,
    };
  }
  let url;
  let stop;
  if (c.serve === "dist") {
    const server = await startServer({ root: join(dir, "dist"), localModel: false });
    url = `http://127.0.0.1:${server.address().port}/`;
    stop = () => new Promise((resolve) => server.close(resolve));
  } else {
    const port = String(await freePort());
    const [command, ...args] = c.serve.map((a) => (a === "PORT" ? port : a));
    const proc = spawnGroup(command, args, {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    let output = "";
    proc.child.stdout.on("data", (d) => (output = (output + d).slice(-4000)));
    proc.child.stderr.on("data", (d) => (output = (output + d).slice(-4000)));
    await proc.started;
    url = `http://127.0.0.1:${port}/`;
    stop = proc.stop;
    try {
      await waitForHttp(url, PAGE_TIMEOUT, () => output);
    } catch (e) {
      await stop();
      throw e;
    }
  }
  try {
    const problems = c.server ? await serverRendered(url) : [];
    for (const route of c.edgeRoutes ?? []) {
      problems.push(...(await edgeRouteProblems(url + route.path, dir, route, wasmHashes)));
    }
    problems.push(...(await drive(browser, url, c, wasmHashes)));
    return { problems, buildMs, totalMs: Date.now() - started };
  } finally {
    await stop();
  }
}

const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
const cases = only ? CASES.filter((c) => only.includes(c.name)) : CASES;
if (only && cases.length !== only.length) {
  throw new Error(`unknown case in --only; cases: ${CASES.map((c) => c.name).join(", ")}`);
}
if (!existsSync(tool(".package-lock.json"))) {
  console.error("tests/bundlers: the toolchains are not installed; run `bash scripts/bundlers-setup.sh` first");
  process.exit(1);
}

const t0 = Date.now();
mkdirSync(WORK, { recursive: true });
const packed = JSON.parse(
  execFileSync("npm", ["pack", join(ROOT, "pkg"), "--pack-destination", WORK, "--json", "--loglevel=error"], {
    encoding: "utf8",
  }),
);
const tarball = join(WORK, packed[0].filename);
const files = new Set(packed[0].files.map((f) => f.path));
for (
  const path of [
    "gen/citeflow_bg.wasm",
    "gen/stream/citeflow_stream_bg.wasm",
    "gen/stream-full/citeflow_stream_full_bg.wasm",
    "gen/csl/citeflow_csl_bg.wasm",
  ]
) {
  if (!files.has(path)) throw new Error(`the packed package lacks ${path}: build it first (node scripts/build.mjs)`);
}
const wasmHashes = new Map([
  [sha(readFileSync(join(ROOT, "pkg", "gen", "citeflow_bg.wasm"))), "core"],
  [sha(readFileSync(join(ROOT, "pkg", "gen", "stream", "citeflow_stream_bg.wasm"))), "stream"],
  [sha(readFileSync(join(ROOT, "pkg", "gen", "stream-full", "citeflow_stream_full_bg.wasm"))), "full"],
  [sha(readFileSync(join(ROOT, "pkg", "gen", "csl", "citeflow_csl_bg.wasm"))), "csl"],
]);

const browser = await launch(PAGE_TIMEOUT);
const rows = [];
try {
  for (const c of cases) {
    let row;
    try {
      row = await within(BUILD_TIMEOUT + 3 * PAGE_TIMEOUT, c.name, runCase(browser, c, tarball, wasmHashes));
    } catch (e) {
      row = { problems: [e.message], buildMs: 0, totalMs: 0 };
    }
    rows.push({ c, ...row });
    const status = row.problems.length ? "FAIL" : "ok  ";
    const times = `build ${(row.buildMs / 1000).toFixed(1)} s, all ${(row.totalMs / 1000).toFixed(1)} s`;
    console.log(`${status} ${c.label} (${times})`);
    for (const p of row.problems) console.log(`     ${p.split("\n").join("\n     ")}`);
  }
} finally {
  await browser.close();
}
const failed = rows.filter((r) => r.problems.length).length;
console.log(`bundler rows took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`bundlers: ${rows.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
