// A deterministic ~1 MB reasoning transcript: think blocks of a few KB followed by answers,
// with the occasional `<` of maths or code inside, as reasoning models write them.
import { rng } from "../tests/js/helpers.mjs";

const WORDS = ("the source says that we should check whether each claim is supported so let me compare " +
  "numbers dates and names carefully before I answer because x < y holds only when the earlier result " +
  "is right and otherwise I need to revisit step two of the plan").split(" ");

export function transcript(targetBytes = 1 << 20, seed = 7) {
  const random = rng(seed);
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const parts = [];
  let size = 0;
  while (size < targetBytes) {
    const part = `<think>${words(600 + Math.floor(random() * 600))}</think>\n\n${
      words(200 + Math.floor(random() * 300))
    }\n\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join("");
}

export function chunk(text, size) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
