// What the entries say when they cannot find their wasm module by themselves. Bundlers differ
// in what they do with `new URL("x.wasm", import.meta.url)`: Vite and webpack emit the file and
// rewrite the URL; esbuild and plain Rollup leave the URL pointing at a file they never emitted;
// esbuild's default formats empty `import.meta`; Next.js turns the URL into a site-relative
// "/_next/static/…" path, in its server bundle too.
import { citeflowError } from "../src/errors.js";

export const GUIDE = 'see "Using a bundler" in the citeflow README';

/** The error for a bundle without `import.meta.url` (esbuild's iife and cjs formats). */
export function noModuleUrl(file, how) {
  return citeflowError(
    "NOT_INITIALIZED",
    `citeflow cannot locate ${file}: this bundle has no import.meta.url (esbuild empties import.meta unless --format=esm). ${how}; ${GUIDE}`,
  );
}

/** Awaits `instantiate()` (the default fetch), turning a failure into an error that says what to do. */
export async function fetchedOrExplained(instantiate, file, how) {
  try {
    return await instantiate();
  } catch (e) {
    const message = String(e?.message ?? e);
    let why;
    // Chromium names the bytes found ("3c" is "<"); Firefox and WebKit only say the magic
    // number is wrong.
    if (/found 3c |magic number|magic header|start with '\\0asm'/i.test(message)) {
      why =
        `the server answered with something other than ${file}, most likely an HTML page. Vite's dev server (6 and 7) does this when it pre-bundles citeflow: add optimizeDeps: { exclude: ["citeflow"] } to the Vite config`;
    } else if (/failed to fetch Wasm: 404/.test(message)) {
      why = `${file} is not where the bundle looks for it (${message}): the bundler did not emit it. ${how}`;
    } else {
      why = `loading ${file} from its default URL failed (${message}). ${how}`;
    }
    throw citeflowError("NOT_INITIALIZED", `citeflow could not initialise: ${why}; ${GUIDE}`, e);
  }
}

/**
 * A module's exports, instantiated by its glue's `initWasm` from `input` (a URL, Response,
 * bytes or Module) or, without one, from its default URL beside the package's code.
 */
export async function instantiated(initWasm, input, file, how) {
  if (input !== undefined) return initWasm({ module_or_path: input });
  if (typeof import.meta.url !== "string") throw noModuleUrl(file, how);
  return fetchedOrExplained(() => initWasm(), file, how);
}
