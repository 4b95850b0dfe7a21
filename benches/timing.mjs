// Timing helpers shared by the benchmarks.

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function once(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** One warm-up run, then the median of `runs` (ms). */
export async function time(fn, runs) {
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once(fn));
  return median(times);
}

/**
 * Two contenders timed in turns (one warm-up run each, then `runs` pairs, the order swapped
 * every pair), so that both see the same machine: a busy spell slows a pair, not one side.
 * Returns each side's median (ms) and the median of the pairs' ratios `b / a`, which is what
 * the benchmarks report (steadier on a shared machine than the ratio of the two medians).
 */
export async function compare(a, b, runs) {
  await a();
  await b();
  const ta = [];
  const tb = [];
  const ratios = [];
  for (let i = 0; i < runs; i++) {
    let x;
    let y;
    if (i % 2 === 0) {
      x = await once(a);
      y = await once(b);
    } else {
      y = await once(b);
      x = await once(a);
    }
    ta.push(x);
    tb.push(y);
    ratios.push(y / x);
  }
  return { a: median(ta), b: median(tb), ratio: median(ratios) };
}
