// The code blocks of the guides (docs/*.md), as the example runner reads them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A block that cannot run here says so in its info string, with the reason:
 * ```js no-run: a Cloudflare Worker's module (wrangler runs it)
 */
export const NO_RUN = /^no-run:\s*(.*)$/;

/**
 * Every fenced block of every guide in `dir`: `{ guide, line, lang, info, code }`, `line` the
 * fence's line (1-based), `lang` the info string's first word, `info` the rest.
 */
export function guideBlocks(dir) {
  const blocks = [];
  for (const guide of readdirSync(dir).filter((f) => f.endsWith(".md")).sort()) {
    const lines = readFileSync(join(dir, guide), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]);
      if (open === null) continue;
      const [, indent, fence, lang, info] = open;
      const body = [];
      let j = i + 1;
      while (j < lines.length && !(lines[j].trimStart().startsWith(fence) && lines[j].trim() === fence)) {
        body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
        j++;
      }
      blocks.push({ guide, line: i + 1, lang, info: info.trim(), code: body.join("\n") + "\n" });
      i = j;
    }
  }
  return blocks;
}
