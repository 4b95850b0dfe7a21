// A seeded random source for the property cases, with no runtime-specific imports (the
// portable cases run in Node, Deno, workerd and the browsers; tests/js/helpers.mjs re-exports it).

/** mulberry32: small, seeded, good enough to pick split points reproducibly. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
