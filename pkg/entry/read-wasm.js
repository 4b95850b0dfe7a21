// Node.js and Deno: reads a wasm file of the package, wherever a server bundle left it.
import { citeflowError } from "../src/errors.js";
import { GUIDE } from "./explain.js";

/**
 * `node:fs`'s readFileSync, taken from the runtime's own module table: importing "node:fs" as
 * an ES module makes Node 20 build its module facade, which reads every export and so loads the
 * whole streams stack (1.5-4 ms of `import "citeflow"` on a fresh process, more than the
 * package's own code). `process.getBuiltinModule` is in Node 20.16+, 22.3+, Deno and Bun;
 * where it is missing, no file is read and the package waits for `init(bytes)`, as where a
 * bundler moved the files.
 */
const fs = globalThis.process?.getBuiltinModule?.("node:fs");
export const readFileSync = fs?.readFileSync ?? (() => null);

/** The wasm file was not found beside the package's code (or this runtime reads no files). */
export function notFound(file, how) {
  const why = fs === undefined
    ? "this runtime has no process.getBuiltinModule, which Node has from 20.16"
    : "a bundler moved it?";
  return citeflowError(
    "NOT_INITIALIZED",
    `citeflow could not read ${file} beside its own code (${why}). ${how}; ${GUIDE}`,
  );
}

// What reading a file that is not where the URL says looks like: a bundler's site-relative URL
// object ("/_next/static/…", which Node refuses), no import.meta.url at all, a non-file URL,
// or no file there.
const MOVED = new Set(["ERR_INVALID_ARG_TYPE", "ERR_INVALID_URL", "ERR_INVALID_URL_SCHEME", "ENOENT"]);

function attempt(read) {
  try {
    return read();
  } catch (e) {
    if (MOVED.has(e?.code)) return null;
    throw e;
  }
}

/**
 * The bytes of a wasm file of the package: `readEmitted()` is the entry's
 * literal `readFileSync(new URL(name, import.meta.url))`, which works unbundled and where the
 * bundler emitted the file with a file URL (webpack's server output), and which tells tracers
 * (Next.js) to ship the file; else the file `name` beside `moduleUrl`, the entry's own
 * `import.meta.url`, which server bundlers (Next.js with Turbopack) keep as the source file's URL.
 * Null when neither is there: the caller then waits for `init`. The entries read at the first
 * need (`wasmFile`), not at import: reading the two modules took 1-1.5 ms of `import "citeflow"`;
 * the background compilation reads them right after it, or the first use if that comes first.
 */
export function readWasm(readEmitted, moduleUrl, name) {
  return attempt(readEmitted) ?? attempt(() => readFileSync(new URL(name, moduleUrl)));
}

/** `readWasm` made at the first call and kept. */
export function wasmFile(readEmitted, moduleUrl, name) {
  let bytes;
  return () => {
    if (bytes === undefined) bytes = readWasm(readEmitted, moduleUrl, name);
    return bytes;
  };
}

/**
 * Starts compiling the file `bytesOf()` off the main thread once the importing code has run (a
 * timer, so the import itself pays nothing; the file is read then), then calls `done()` if given;
 * returns what to instantiate: the compiled module if that finished, else the bytes (compiled
 * then, on the caller's thread). A failure there is left to the caller's own compilation to
 * report.
 */
export function compiledInBackground(bytesOf, done) {
  let compiled = null;
  setTimeout(() => {
    const bytes = bytesOf();
    if (bytes === null) return;
    WebAssembly.compile(bytes).then((module) => {
      compiled = module;
      done?.();
    }, () => {});
  }, 0);
  return () => compiled ?? bytesOf();
}
