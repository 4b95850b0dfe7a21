// The relevance components' batching: whatever order calls finish in, results come back in
// input order, at most `limit` calls run at once, and a failure stops new batches.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mapBatches } from "../../pkg/src/relevance/batches.js";
import { rng } from "./helpers.mjs";

test("any batch size, limit and finishing order: input order, bounded concurrency", async () => {
  const random = rng(3);
  for (let round = 0; round < 40; round++) {
    const items = Array.from({ length: Math.floor(random() * 30) }, (_, i) => i);
    const size = 1 + Math.floor(random() * 6);
    const limit = 1 + Math.floor(random() * 5);
    let running = 0;
    let most = 0;
    const out = await mapBatches(items, size, limit, async (batch, start) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, random() * 4));
      running--;
      assert.equal(batch[0], start);
      return batch.map((x) => x * 10);
    });
    assert.deepEqual(out.flat(), items.map((x) => x * 10), `size ${size}, limit ${limit}`);
    assert.ok(most <= limit, `${most} in flight with limit ${limit}`);
  }
});

test("after a failure no new batch starts, and the error is the caller's", async () => {
  const started = [];
  const boom = new Error("batch 2 failed");
  await assert.rejects(
    mapBatches([...Array(20).keys()], 2, 2, async (batch, start) => {
      started.push(start);
      if (start === 2) throw boom;
      await new Promise((r) => setTimeout(r, 5));
      return batch;
    }),
    (e) => e === boom,
  );
  assert.ok(started.length <= 3, `started ${started}`);
});
