// Runs portable cases one after another where no test runner is at hand (the Deno and workerd
// smoke tests): each case's name, whether it passed, how long it took, and why it failed.

/** `cases`: an object of named async cases (tests/portable/*.cases.mjs); `ctx`: what they get. */
export async function runCases(cases, ctx) {
  const results = [];
  for (const [name, run] of Object.entries(cases)) {
    const started = performance.now();
    try {
      await run(ctx);
      results.push({ name, ok: true, ms: performance.now() - started });
    } catch (e) {
      results.push({ name, ok: false, error: String(e?.stack ?? e) });
    }
  }
  return results;
}

/** Throws, naming every failed case, unless all `results` passed; else logs one line. */
export function checkResults(results, where) {
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${where}: ${failed.map((r) => `${r.name}\n${r.error}`).join("\n\n")}`);
  const ms = results.reduce((sum, r) => sum + r.ms, 0);
  console.log(`${where}: ${results.length} cases passed (${ms.toFixed(0)} ms)`);
}
