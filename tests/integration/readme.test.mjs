// The README's Quick start, run as a user would run it (copied out of README.md into a module,
// in its own Node process) against the real local model server: the end-to-end flow works
// and prints what the README says it prints.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { base } from "./support.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const README_BASE = '"http://127.0.0.1:8080/v1"';

/** The first js code block after `heading` in the README. */
function exampleAfter(heading) {
  const readme = readFileSync(`${root}README.md`, "utf8");
  const at = readme.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README has no "${heading}"`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, `no js block after "${heading}"`);
  return block[1];
}

function run(file) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

test("the README's Quick start: retrieve → filter → stream a cited answer → APA references → verify", async () => {
  const code = exampleAfter("## Quick start");
  assert.ok(code.includes(README_BASE), "the example talks to the demo's model server");
  mkdirSync(`${root}tests/out`, { recursive: true });
  const file = `${root}tests/out/readme-quickstart.mjs`;
  writeFileSync(file, code.replace(README_BASE, JSON.stringify(base)));
  const { code: exit, stdout, stderr } = await run(file);
  assert.equal(exit, 0, `the example failed:\n${stderr}`);
  const citations = [...stdout.matchAll(/^\[(\d+)\] at (\d+),(\d+) → source (\d+)$/gm)];
  assert.ok(citations.length >= 1, `no citation printed:\n${stdout}`);
  for (const [, marker, , , source] of citations) assert.equal(marker, source);
  // The relevance filter kept the two Eiffel chunks and dropped the bees; only cited sources
  // get a reference, in APA from the chunks' metadata.
  const cited = new Set(citations.map((c) => Number(c[4])));
  assert.ok([...cited].every((id) => id === 1 || id === 2), `cited ${[...cited]}`);
  if (cited.has(1)) {
    assert.match(stdout, /^Henri Loyrette\. \(1985\)\. eiffel\.pdf\. https:\/\/example\.org\/eiffel\.pdf$/m);
  }
  if (cited.has(2)) assert.match(stdout, /^Paris Guide\. \(n\.d\.\)\. The Eiffel Tower in numbers\./m);
  assert.doesNotMatch(stdout, /bees\.txt/);
  assert.match(stdout, new RegExp(`^${citations.length} citations checked, support rate (0|1|0\\.\\d+)$`, "m"));
});
