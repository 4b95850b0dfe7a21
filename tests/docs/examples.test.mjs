// Every ```js block of the guides (docs/*.md) runs, as written, against the built package
// (node_modules/citeflow): each is written to a module under target/docs-examples/ and run in
// a fresh Node process, which must exit cleanly. Blocks that call a model read the server's
// address from `process.env.BASE_URL` (the guides' convention: any OpenAI-compatible server,
// `make demo`'s by default); here that is the scripted model of scripts/local-model.mjs,
// which answers from the sources in the prompt with [N] markers and embeds by word overlap,
// extended with log-probabilities and relevance verdicts for decision models and relevance
// filters (./model.mjs). A block that cannot run in Node says why in its info string
// (`js no-run: <reason>`); the run lists how many were skipped, and why.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { guideBlocks, NO_RUN } from "./blocks.mjs";
import { startDocsModel } from "./model.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = join(root, "target", "docs-examples");
const run = promisify(execFile);
const blocks = guideBlocks(join(root, "docs")).filter((b) => b.lang === "js" || b.lang === "javascript");
const skipped = blocks.filter((b) => NO_RUN.test(b.info));
const runnable = blocks.filter((b) => !NO_RUN.test(b.info));
let model;

before(async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  model = await startDocsModel();
});
after(() => model?.close());

test("the guides have js blocks, and every block is either run or marked with a reason", () => {
  assert.ok(runnable.length >= 20, `only ${runnable.length} runnable blocks`);
  for (const b of blocks) {
    assert.ok(b.info === "" || NO_RUN.test(b.info), `docs/${b.guide}:${b.line}: unknown info "${b.info}"`);
  }
  for (const b of skipped) {
    assert.ok(NO_RUN.exec(b.info)[1].length > 10, `docs/${b.guide}:${b.line}: no-run needs its reason`);
  }
  const reasons = skipped.map((b) => `  docs/${b.guide}:${b.line}: ${NO_RUN.exec(b.info)[1]}`);
  console.log(`guide examples: ${runnable.length} run, ${skipped.length} skipped\n${reasons.join("\n")}`);
  // Keep the skipped ones few: a block that can run, runs.
  assert.ok(skipped.length <= 6, `${skipped.length} blocks skipped`);
});

for (const b of runnable) {
  test(`docs/${b.guide}:${b.line}`, async () => {
    const file = join(dir, `${b.guide.replace(/\.md$/, "")}-${b.line}.mjs`);
    writeFileSync(file, b.code);
    try {
      await run(process.execPath, [file], {
        cwd: dir,
        env: { ...process.env, BASE_URL: model.base },
        timeout: 30_000,
      });
    } catch (e) {
      assert.fail(`docs/${b.guide}:${b.line} failed (${file}):\n${e.stderr || e.message}`);
    }
  });
}
