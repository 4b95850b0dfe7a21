// The documentation site `make docs` builds (scripts/docs.mjs), built into a temporary folder:
// it opens offline (every link relative and resolving, anchors included; no script,
// stylesheet, image or font from another host), and it has a page for each guide in docs/
// and each of the four .d.ts entry points, reachable from the start page.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildSite, guides } from "../../scripts/docs.mjs";
import { checkSite, linksOf } from "./links.mjs";

const ENTRY_POINTS = ["index", "stream", "csl", "ai-sdk"];
let out;
let dir;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "citeflow-docs-"));
  out = buildSite({ out: join(dir, "site"), log: () => {} });
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("every relative link of every page resolves, and nothing is loaded from another host", () => {
  const { pages, links, broken, rustPaths } = checkSite(out);
  assert.ok(pages > 100, `only ${pages} pages`);
  assert.ok(links > 1000, `only ${links} links`);
  assert.deepEqual(broken, []);
  // A dependency's unresolved doc links, shown on our types, are the only links let through.
  for (const link of rustPaths) assert.match(link, /^rust\/citeflow\/.*\.html → [\w:]+$/);
});

test("each guide in docs/ has a page, titled by its first heading, linked from the start page", () => {
  const index = linksOf(readFileSync(join(out, "index.html"), "utf8"));
  const list = guides();
  assert.ok(list.length >= 12, `only ${list.length} guides`);
  for (const { name, title } of list) {
    const page = join(out, "api", "documents", `${name}.html`);
    assert.ok(existsSync(page), `no page for docs/${name}.md`);
    const html = readFileSync(page, "utf8");
    assert.ok(html.includes(`<title>${title.replace(/&/g, "&amp;")} | citeflow</title>`), `docs/${name}.md's title`);
    assert.ok(index.includes(`api/documents/${name}.html`), `the start page does not link docs/${name}.md`);
  }
});

test("each of the four entry points has a page of the JS API, and the Rust API is there", () => {
  const index = linksOf(readFileSync(join(out, "index.html"), "utf8"));
  for (const name of ENTRY_POINTS) {
    const page = join(out, "api", "modules", `${name}.html`);
    assert.ok(existsSync(page), `no page for pkg/${name}.d.ts`);
    assert.ok(index.includes(`api/modules/${name}.html`), `the start page does not link pkg/${name}.d.ts`);
  }
  // A class from each of the two faces: what a reader looks for first.
  assert.ok(existsSync(join(out, "api", "classes", "index.Citeformer.html")));
  assert.ok(existsSync(join(out, "rust", "citeflow", "web", "lm", "struct.LmInvoker.html")));
  assert.ok(index.includes("rust/citeflow/index.html"));
  assert.ok(index.includes("api/documents/demo.html"));
});
