// Shared by the JS tests: fixtures, a seeded random source, and event merging.
import { readFileSync } from "node:fs";

export { rng } from "../portable/rng.mjs";
export { pickPiece } from "../portable/odd_characters.mjs";

export const thinkTagCases =
  JSON.parse(readFileSync(new URL("../fixtures/think_tag.json", import.meta.url), "utf8")).cases;

/** Adjacent content events of the same type and id merged: what a UI shows. */
export function merged(events) {
  const out = [];
  for (const e of events) {
    const last = out[out.length - 1];
    const content = !e.type.endsWith("_start") && !e.type.endsWith("_end");
    if (last && content && last.type === e.type && last.id === e.id && typeof e.value === "string") {
      last.value += e.value;
    } else {
      out.push({ ...e });
    }
  }
  return out;
}

export function runStream(transformer, inputs) {
  const out = [];
  for (const input of inputs) out.push(...transformer.push(input));
  out.push(...transformer.finish());
  return out;
}

/** Splits a string at random UTF-16 positions, never inside a surrogate pair. */
export function randomSplit(text, random, maxPieces = 12) {
  const cuts = new Set([0, text.length]);
  const n = Math.floor(random() * maxPieces);
  for (let i = 0; i < n; i++) {
    let c = Math.floor(random() * (text.length + 1));
    const code = text.charCodeAt(c);
    if (code >= 0xdc00 && code <= 0xdfff) c -= 1;
    cuts.add(c);
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  return sorted.slice(1).map((end, i) => text.slice(sorted[i], end));
}

export function assertCode(fn, code) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof Error)) throw new Error(`expected an Error, got ${e}`);
    if (e.name !== "CiteflowError" || e.code !== code) {
      throw new Error(`expected code ${code}, got ${e.name} ${e.code}: ${e.message}`);
    }
    return e;
  }
  throw new Error(`expected an error with code ${code}, nothing was thrown`);
}
