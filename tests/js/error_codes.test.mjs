// Every error code the package can throw is in the `CiteflowErrorCode` union of pkg/index.d.ts,
// and every code in the union is thrown somewhere: the types say exactly what comes back.
// Codes are read from the sources: the core's `code()` tables and `js_error(...)` calls, the JS
// face's `citeflowError(...)` calls and the glue patch's argument checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

function files(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, ext) : path.endsWith(ext) ? [path] : [];
  });
}

const CODE = "([A-Z][A-Z0-9_]+)";
const patterns = [
  new RegExp(`=> "${CODE}"`, "g"), // a code() table arm
  new RegExp(`js_error(?:_with_cause)?\\(\\s*"${CODE}"`, "g"),
  new RegExp(`from_js(?:::<[^>]+>)?\\([^,]+,\\s*"${CODE}"`, "g"),
  new RegExp(`js_to_json\\([^,]+,\\s*"${CODE}"`, "g"),
  new RegExp(`(?:citeflowError|invokerError|fail)\\(\\s*"${CODE}"`, "g"),
  new RegExp(`\\bcode: "${CODE}"`, "g"), // an error described as data, thrown later
  new RegExp(`\\b(?:code|error\\.code) = "${CODE}"`, "g"),
  new RegExp(`(?:prop|fields|list)\\([^;]*?"${CODE}"`, "g"),
  new RegExp(`CallError::refused\\(\\s*"${CODE}"`, "g"), // an answer the call machine refuses
];

function thrown() {
  // src/web/ is the Rust face (feature `web`), not compiled into the package: its ABORTED is
  // the Rust caller's code for a cancelled call, which the package rejects with the reason.
  const rust = files(join(root, "src"), ".rs").filter((path) => !path.startsWith(join(root, "src", "web")));
  const sources = [...rust, ...files(join(root, "pkg", "src"), ".js"), join(root, "scripts", "glue.mjs")];
  // The call machine's ABORTED (src/call/) likewise: the package's driver never reports an
  // abort to it, and rejects with the signal's reason.
  const rustFaceOnly = (code, path) => code === "ABORTED" && path.startsWith(join(root, "src", "call"));
  const codes = new Map();
  for (const path of sources) {
    const text = readFileSync(path, "utf8");
    for (const pattern of patterns) {
      for (const m of text.matchAll(pattern)) {
        if (!codes.has(m[1]) && !rustFaceOnly(m[1], path)) codes.set(m[1], path.slice(root.length));
      }
    }
  }
  return codes;
}

function declared() {
  const dts = readFileSync(join(root, "pkg", "index.d.ts"), "utf8");
  const union = dts.match(/export type CiteflowErrorCode =([^;]+);/);
  assert.ok(union, "pkg/index.d.ts declares CiteflowErrorCode");
  return new Set([...union[1].matchAll(/"([A-Z0-9_]+)"/g)].map((m) => m[1]));
}

test("every thrown error code is declared, and every declared code is thrown", () => {
  const codes = thrown();
  const types = declared();
  const undeclared = [...codes].filter(([code]) => !types.has(code)).map(([code, where]) => `${code} (${where})`);
  assert.deepEqual(undeclared, [], "thrown but missing from CiteflowErrorCode");
  const unused = [...types].filter((code) => !codes.has(code));
  assert.deepEqual(unused, [], "declared in CiteflowErrorCode but thrown nowhere");
  assert.ok(codes.size > 20, `found ${codes.size} codes: the patterns still match the sources`);
});
