// quick: IEEE/MLA first-ten pairs, median of per-pair ratios
import { execFileSync } from "node:child_process";
const src = (await import("node:fs")).readFileSync("benches/csl.mjs","utf8");
const start = src.indexOf("const FIRST_TEN"); const end = src.indexOf("const FIRST_STYLES");
const FIRST_TEN = new Function(src.slice(start, end).replace("const FIRST_TEN =", "return") )();
const styles = { ieee: "ieee", mla: "modern-language-association", apa: "apa" };
const n = +(process.argv[2] ?? 7);
for (const s of (process.argv[3] ?? "ieee,mla").split(",")) {
  const r = [], a = [], b = [];
  for (let i = 0; i < n; i++) {
    const x = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", FIRST_TEN.citeflow({ ours: s, file: styles[s] })], { encoding: "utf8" })).ms;
    const y = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", FIRST_TEN.citeproc({ ours: s, file: styles[s] })], { encoding: "utf8" })).ms;
    a.push(x); b.push(y); r.push(y / x);
  }
  const med = (v) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)];
  console.log(s, "ours", med(a).toFixed(1), "theirs", med(b).toFixed(1), "ratio-med", med(r).toFixed(2), "min", Math.min(...r).toFixed(2), "max", Math.max(...r).toFixed(2), "| ours", a.map(v=>v.toFixed(0)).join(","));
}
