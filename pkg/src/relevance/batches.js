// Batches of `size`, at most `limit` in flight, results in batch order. After a failure no
// new batch starts, and the first error is what the caller gets.
export async function mapBatches(items, size, limit, fn) {
  const batches = [];
  for (let i = 0; i < items.length; i += size) batches.push([items.slice(i, i + size), i]);
  const results = new Array(batches.length);
  let next = 0;
  let failed = false;
  async function worker() {
    while (!failed && next < batches.length) {
      const k = next++;
      try {
        results[k] = await fn(batches[k][0], batches[k][1]);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, batches.length) }, worker));
  return results;
}
