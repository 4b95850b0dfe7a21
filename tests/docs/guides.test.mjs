// What the guides promise about themselves: the errors guide names every code the types name,
// and every topic the documentation covers has its guide.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (path) => readFileSync(`${root}${path}`, "utf8");

test("docs/errors.md names every CiteflowErrorCode of pkg/index.d.ts", () => {
  const types = read("pkg/index.d.ts");
  const union = types.slice(types.indexOf("export type CiteflowErrorCode"));
  const codes = [...union.slice(0, union.indexOf(";")).matchAll(/\| "([A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length > 40, `only ${codes.length} codes read`);
  const guide = read("docs/errors.md");
  assert.deepEqual(codes.filter((code) => !guide.includes(`\`${code}\``)), []);
});

test("each topic has its guide", () => {
  for (
    const name of [
      "streaming",
      "citations",
      "providers",
      "relevance",
      "csl",
      "citeformer",
      "security",
      "rust",
      "runtimes",
      "invokers",
      "ai-sdk",
      "errors",
      "demo",
      "performance",
    ]
  ) {
    assert.ok(existsSync(`${root}docs/${name}.md`), `docs/${name}.md`);
  }
});
