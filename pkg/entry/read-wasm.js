// Node.js and Deno: reads a wasm file of the package, or says it is not there.
import { readFileSync } from "node:fs";

/**
 * The bytes of the wasm file `name` (relative to the entry): first at `emitted()`, the entry's
 * `new URL(name, import.meta.url)` as a bundler may have rewritten it, when that is a file URL
 * (webpack's server output); else beside `moduleUrl`, the entry's own `import.meta.url`, which
 * server bundlers (Next.js) keep as the source file's URL. The literal `new URL(...)` stays in
 * the entry, where bundlers look for it. Null when neither is a readable file (the caller then
 * waits for `init`).
 */
export function readWasm(emitted, moduleUrl, name) {
  const candidates = [() => new URL(String(emitted())), () => new URL(name, moduleUrl)];
  for (const candidate of candidates) {
    let url;
    try {
      url = candidate();
    } catch {
      continue; // a site-relative path ("/_next/static/…") or no import.meta.url at all
    }
    if (url.protocol !== "file:") continue;
    try {
      return readFileSync(url);
    } catch (e) {
      if (e?.code !== "ENOENT") throw e;
    }
  }
  return null;
}
