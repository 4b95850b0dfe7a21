// Node and Deno: "citeflow" instantiates no wasm module at import: the core on first use, the
// streaming module when its background compilation is done or on first use, whichever comes
// first. Each case runs in a fresh process (the package's instances are per process).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));

/** A copy of the package's JS and streaming module in a scratch folder, with no core wasm file. */
function packageWithoutCore(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(pkg, "dist"), join(dir, "dist"), { recursive: true });
  mkdirSync(join(dir, "gen", "stream"), { recursive: true });
  copyFileSync(
    join(pkg, "gen", "stream", "citeflow_stream_bg.wasm"),
    join(dir, "gen", "stream", "citeflow_stream_bg.wasm"),
  );
  return dir;
}

/** Runs `code` (an ES module, importing the package as `entry`) in a fresh Node process; its JSON output. */
function fresh(code, entry = "citeflow", before = "") {
  const counting = before + `
const counts = { instances: 0, compiled: 0 };
WebAssembly.Instance = new Proxy(WebAssembly.Instance, { construct(t, a) { counts.instances++; return new t(...a); } });
const compile = WebAssembly.compile;
WebAssembly.compile = (bytes) => compile(bytes).then((m) => { counts.compiled++; return m; });
// Until the package's background compilations (n of them) are done and it has seen them.
globalThis.compiled = async (n) => {
  while (counts.compiled < n) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 0));
};
const lib = await import(${JSON.stringify(entry)});
`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", counting + code], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    encoding: "utf8",
  });
  return JSON.parse(out);
}

test("the import instantiates no wasm: the core on its first call, the streaming module once compiled in the background", () => {
  const r = fresh(`
const atImport = counts.instances;
const ready = lib.isReady();
const first = lib.checkPolicy("a [1].", { sourceCount: 1 }).ok;
const afterFirst = counts.instances;
await compiled(2);
const afterIdle = counts.instances;
lib.parseCitations("b [1]", { sourceCount: 1 });
const stream = new lib.CitationParser().push("a [1] b").length === 2;
console.log(JSON.stringify({ atImport, ready, first, afterFirst, afterIdle, stream, later: counts.instances }));
`);
  assert.deepEqual(r, { atImport: 0, ready: true, first: true, afterFirst: 1, afterIdle: 2, stream: true, later: 2 });
});

// What the import reads from disk: none of the wasm files (reading the core and the streaming
// module took 1-1.5 ms of it); the background compilation reads each once after it.
const countingReads = `
const fs = process.getBuiltinModule("node:fs");
const reads = [];
const read = fs.readFileSync;
fs.readFileSync = (path, ...rest) => {
  if (String(path).endsWith(".wasm")) reads.push(String(path).split("/").pop());
  return read(path, ...rest);
};
`;

test("the import reads no wasm file: the background compilation reads each module once, after it", () => {
  const r = fresh(
    `
const atImport = reads.length;
await compiled(2);
const ok = lib.checkPolicy("a [1].", { sourceCount: 1 }).ok && new lib.CitationParser().push("a [1] b").length === 2;
console.log(JSON.stringify({ atImport, after: reads.sort(), ok }));
`,
    "citeflow",
    countingReads,
  );
  assert.deepEqual(r, { atImport: 0, after: ["citeflow_bg.wasm", "citeflow_stream_bg.wasm"], ok: true });
});

test("a package whose core wasm file is gone is not ready, NOT_INITIALIZED at the first use, until init(bytes)", () => {
  const dir = packageWithoutCore("citeflow-gone-");
  try {
    const r = fresh(
      `
const { readFileSync } = await import("node:fs");
let code = "none";
try { lib.checkPolicy("a [1].", { sourceCount: 1 }); } catch (e) { code = e.code; }
const ready = lib.isReady();
let bare = "none";
try { await lib.init(); } catch (e) { bare = e.code; }
await lib.init(readFileSync(${JSON.stringify(join(pkg, "gen", "citeflow_bg.wasm"))}));
console.log(JSON.stringify({ code, ready, bare, ok: lib.checkPolicy("a [1].", { sourceCount: 1 }).ok, after: lib.isReady() }));
`,
      join(dir, "dist", "node.js"),
    );
    assert.deepEqual(r, { code: "NOT_INITIALIZED", ready: false, bare: "NOT_INITIALIZED", ok: true, after: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a streaming object made right after the import instantiates the streaming module then, once", () => {
  const r = fresh(
    `
const atImport = counts.instances;
const stream = new lib.CitationParser().push("a [1] b").length === 2;
const afterFirst = counts.instances;
await compiled(1);
console.log(JSON.stringify({ atImport, stream, afterFirst, afterIdle: counts.instances, ready: lib.isReady() }));
`,
    "citeflow/stream",
  );
  assert.deepEqual(r, { atImport: 0, stream: true, afterFirst: 1, afterIdle: 1, ready: true });
});

test("the full streaming module is instantiated only by what needs it: a JSON stage, a whole-output transform", () => {
  const r = fresh(
    `
const think = new lib.ThinkTagOutputTransformer();
const chain = new lib.OutputTransformerChain([think.fresh(), new lib.CitationParser({ sourceCount: 1 }), new lib.IdentityOutputTransformer()]);
const streamed = chain.push("<think>a</think>b [1]").length > 0 && think.push("x").length > 0;
const lean = counts.instances;
const fullBefore = lib.isFullReady();
const json = new lib.JSONOutputTransformer();
json.push("{\\"a\\": 1}");
const structured = json.finish().filter((e) => e.type === "structured").map((e) => e.value);
const afterJson = counts.instances;
const whole = think.transform({ outputs: [{ type: "text", output: "<think>t</think>a" }] }).outputs.length;
console.log(JSON.stringify({ streamed, lean, fullBefore, structured, afterJson, whole, later: counts.instances }));
`,
    "citeflow/stream",
  );
  assert.deepEqual(r, {
    streamed: true,
    lean: 1,
    fullBefore: true,
    structured: [{ a: 1 }],
    afterJson: 2,
    whole: 2,
    later: 2,
  });
});

test("citeflow/csl instantiates its module once compiled in the background, or at the first render if that comes first", () => {
  const render =
    `lib.renderReferences([{ id: "a", type: "book", title: "T", author: [{ family: "X", given: "Y" }], issued: { "date-parts": [[2020]] } }], [{ sourceId: 1 }], {})[0].entry`;
  const idle = fresh(
    `
const atImport = counts.instances;
await compiled(1);
const afterIdle = counts.instances;
const entry = ${render};
console.log(JSON.stringify({ atImport, afterIdle, entry, later: counts.instances }));
`,
    "citeflow/csl",
  );
  assert.deepEqual(idle, { atImport: 0, afterIdle: 1, entry: "X, Y. (2020). T.", later: 1 });
  const eager = fresh(
    `
const atImport = counts.instances;
const entry = ${render};
const afterFirst = counts.instances;
await compiled(1);
console.log(JSON.stringify({ atImport, entry, afterFirst, afterIdle: counts.instances }));
`,
    "citeflow/csl",
  );
  assert.deepEqual(eager, { atImport: 0, entry: "X, Y. (2020). T.", afterFirst: 1, afterIdle: 1 });
});

test("a GenerationResult built by hand can verify as the first use of the core", () => {
  const r = fresh(`
const result = new lib.GenerationResult({ text: "Water boils at 100 C [1].", citations: [], references: [], sources: [{ content: "Water boils at 100 C." }] });
const report = await result.verify();
console.log(JSON.stringify({ checked: report.citationsChecked }));
`);
  assert.deepEqual(r, { checked: 1 });
});

test("a core module that does not compile is NOT_INITIALIZED at the first use (with the cause), until init(bytes)", () => {
  const dir = packageWithoutCore("citeflow-lazy-");
  try {
    writeFileSync(join(dir, "gen", "citeflow_bg.wasm"), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0xff]));
    const r = fresh(
      `
const { readFileSync } = await import("node:fs");
const codeOf = (f) => { try { f(); return "none"; } catch (e) { return [e.code, e.cause instanceof WebAssembly.CompileError]; } };
const readyAtImport = lib.isReady();
const first = codeOf(() => lib.checkPolicy("a [1].", { sourceCount: 1 }));
const second = codeOf(() => lib.parseCitations("a [1]", { sourceCount: 1 }));
const readyAfter = lib.isReady();
const stream = new lib.CitationParser().push("a [1] b").length === 2;
await lib.init(readFileSync(${JSON.stringify(join(pkg, "gen", "citeflow_bg.wasm"))}));
console.log(JSON.stringify({ readyAtImport, first, second, readyAfter, stream, ok: lib.checkPolicy("a [1].", { sourceCount: 1 }).ok, ready: lib.isReady() }));
`,
      join(dir, "dist", "node.js"),
    );
    assert.deepEqual(r, {
      readyAtImport: true,
      first: ["NOT_INITIALIZED", true],
      second: ["NOT_INITIALIZED", false],
      readyAfter: false,
      stream: true,
      ok: true,
      ready: true,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
