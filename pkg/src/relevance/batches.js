import { Gate } from "../gate.js";

/** `items` cut into batches of `size`: `[batch, index of its first item]`. */
export function batchesOf(items, size) {
  const batches = [];
  for (let i = 0; i < items.length; i += size) batches.push([items.slice(i, i + size), i]);
  return batches;
}

// Batches of `size`, at most `limit` in flight, results in batch order. After a failure no
// new batch starts, and the first error is what the caller gets.
export async function mapBatches(items, size, limit, fn) {
  const gate = new Gate(limit);
  return Promise.all(batchesOf(items, size).map(([batch, start]) => gate.run(() => fn(batch, start))));
}
