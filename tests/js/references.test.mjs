import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { bundledStyleNames, parseCitations, renderReferences } from "citeflow";
import * as csl from "citeflow/csl";

const corpus = JSON.parse(readFileSync(new URL("../fixtures/csl-corpus.json", import.meta.url), "utf8"));
const poe = {
  id: "poe",
  type: "book",
  title: "The purloined letter",
  author: [{ family: "Poe", given: "Edgar Allan" }],
  issued: { "date-parts": [[1845]] },
  publisher: "Wiley",
};
const lecun = corpus.find((s) => s.id === "lecun");

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.name, "CiteflowError");
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test("the main entry loads the CSL module on first use; APA is the default", async () => {
  const refs = await renderReferences([poe, lecun], [1]);
  assert.deepEqual(refs, [{
    sourceId: 1,
    inlineMarker: "(Poe, 1845)",
    entry: "Poe, E. A. (1845). The purloined letter. Wiley.",
  }]);
  assert.ok((await bundledStyleNames()).includes("apa-7"));
  assert.deepEqual(csl.bundledStyleNames(), await bundledStyleNames());
});

test("every bundled style renders; numeric styles number by first citation", async () => {
  const sources = [poe, lecun];
  for (const style of csl.bundledStyleNames()) {
    const refs = csl.renderReferences(sources, [2, 1, 2], { style });
    assert.equal(refs.length, 2, style);
    for (const r of refs) assert.ok(r.entry.length > 10 && r.inlineMarker.length > 0, `${style}: ${JSON.stringify(r)}`);
  }
  const ieee = csl.renderReferences(sources, [2, 1], { style: "ieee" });
  assert.deepEqual(ieee.map((r) => [r.sourceId, r.inlineMarker]), [[2, "[1]"], [1, "[2]"]]);
  assert.match(ieee[0].entry, /^\[1\] Y\. LeCun/);
});

test("bundled styles are files of the package, loaded on demand", async () => {
  for (const name of csl.bundledStyleNames()) await csl.loadStyle(name);
  await csl.loadStyle();
  await rejectsWith(csl.loadStyle("apa-99"), "UNKNOWN_STYLE", /apa-7/);
  await rejectsWith(csl.loadStyle(7), "INVALID_ARGUMENT");
  const source = readFileSync(new URL("../../src/csl/styles/ieee.csl", import.meta.url), "utf8");
  assert.equal((await import("../../pkg/gen/styles/ieee.js")).default, source);
});

test("bibliographies sort by the host's collation (Intl.Collator)", () => {
  const names = ["Zeller", "Łukasz", "Lewis", "Čapek", "Cole", "Oakes"];
  const sources = names.map((family, i) => ({
    id: `n${i}`,
    type: "book",
    title: `T${i}`,
    author: [{ family, given: "A" }],
    issued: { "date-parts": [[2000]] },
  }));
  const order = csl.renderReferences(sources, null, { style: "apa" }).map((r) => r.entry.split(",")[0]);
  // By code point, Ł and Č would follow Z.
  assert.deepEqual(order, ["Čapek", "Cole", "Lewis", "Łukasz", "Oakes", "Zeller"]);
});

test("citations may be Citation objects from parseCitations; invalid and repeated ids are skipped", () => {
  const text = "Deep nets work [2]. Poe wrote it [1]. Again [2]. Unknown [7].";
  const refs = csl.renderReferences([poe, lecun], parseCitations(text, { sourceCount: 2 }), { style: "vancouver" });
  assert.deepEqual(refs.map((r) => [r.sourceId, r.inlineMarker]), [[2, "(1)"], [1, "(2)"]]);
  assert.deepEqual(csl.renderReferences([poe], [], {}), []);
});

test("sources may be {content, metadata}; missing ids are filled in", () => {
  const refs = csl.renderReferences(
    [{ content: "…", metadata: { type: "webpage", title: "No id here", URL: "https://example.org/x" } }],
    null,
    { style: "apa" },
  );
  assert.match(refs[0].entry, /No id here/);
});

test("HTML output escapes hostile metadata and links only http(s)", () => {
  const hostile = {
    id: "x",
    type: "webpage",
    title: "<script>alert(1)</script> & \"quotes\" 'single'",
    author: [{ family: "<img src=x onerror=alert(1)>", given: "Eve" }],
    URL: "javascript:alert(1)",
    issued: { "date-parts": [[2024]] },
  };
  const breakout = {
    id: "y",
    type: "webpage",
    title: "Break",
    URL: 'https://ok.example/"><script>alert(2)</script>',
    issued: { "date-parts": [[2024]] },
  };
  for (const style of ["apa", "ieee", "mla"]) {
    const html = csl.renderReferences([hostile, breakout], null, { style, format: "html" }).map((r) => r.entry).join(
      "\n",
    );
    assert.doesNotMatch(html, /<script|<img|href="javascript/i, style);
    assert.match(html, /&lt;script&gt;/, style);
    assert.doesNotMatch(html, /href="[^"]*"[^>]*"&gt;/, style);
    for (const m of html.matchAll(/href="([^"]*)"/g)) assert.match(m[1], /^https?:\/\//, style);
  }
});

test("a style and a locale can be given as XML", () => {
  const shared = new URL("../../../shared/csl/", import.meta.url);
  const style = readFileSync(new URL("styles/nature.csl", shared), "utf8");
  const locale = readFileSync(new URL("locales/locales-de-DE.xml", shared), "utf8");
  const refs = csl.renderReferences([lecun], null, { style, locale });
  assert.match(refs[0].entry, /LeCun/);
});

test("bad input names the field", async () => {
  const check = (fn, code, pattern) =>
    assert.throws(fn, (e) => e.code === code && (!pattern || pattern.test(e.message)));
  check(() => csl.renderReferences([{ title: "x" }]), "INVALID_SOURCE", /sources\[0\]: missing `type`/);
  check(
    () => csl.renderReferences([poe, { type: "novel", title: "x" }]),
    "INVALID_SOURCE",
    /sources\[1\]: `type` "novel"/,
  );
  check(
    () => csl.renderReferences([{ ...poe, issued: { "date-parts": "2020" } }]),
    "INVALID_SOURCE",
    /`issued` must be a CSL date/,
  );
  check(() => csl.renderReferences([{ ...poe, issued: { year: 2020 } }]), "INVALID_SOURCE", /`issued`/);
  check(() => csl.renderReferences([{ ...poe, author: "Poe" }]), "INVALID_SOURCE", /`author` must be an array/);
  check(() => csl.renderReferences([{ ...poe, author: [{ first: "E" }] }]), "INVALID_SOURCE", /`author\[0\]`/);
  check(() => csl.renderReferences([{ ...poe, title: { text: "x" } }]), "INVALID_SOURCE", /`title` must be a string/);
  check(() => csl.renderReferences([]), "NO_SOURCES");
  check(() => csl.renderReferences("poe"), "INVALID_SOURCE");
  check(() => csl.renderReferences([poe], null, { style: "apa-99" }), "UNKNOWN_STYLE", /apa-7/);
  check(() => csl.renderReferences([poe], null, { style: "<style>broken" }), "INVALID_STYLE");
  check(() => csl.renderReferences([poe], null, { locale: "<locale" }), "INVALID_LOCALE");
  check(() => csl.renderReferences([poe], null, { format: "pdf" }), "INVALID_OPTION");
  check(() => csl.renderReferences([poe], null, { colour: "red" }), "INVALID_OPTION");
  check(() => csl.renderReferences([poe], ["one"]), "INVALID_OPTION", /citations\[0\]/);
  await rejectsWith(renderReferences([{}]), "INVALID_SOURCE");
  assert.equal(csl.renderReferences([poe]).length, 1, "still works after errors");
});

test("sources packed in one piece render as when read value by value", () => {
  const odd = JSON.parse(JSON.stringify({
    id: "odd",
    type: "article-journal",
    title: "Tone \ud834\udd1e, a lone \ud800 surrogate, ünïcödé and\ttabs: 12:3 s5:x",
    author: [{ family: "Ørsted", given: "H. C." }, { literal: "The {s3:} Group" }],
    issued: { "date-parts": [[2019, 3], [2020]] },
    volume: 1.5,
    issue: -0,
    page: 2 ** 53 + 2,
    note: null,
    "container-title": "",
    custom: { deep: [[[true, false, null]]], empty: {} },
  }));
  odd.__proto__ = "own data";
  const items = [...corpus, odd, { ...poe, DOI: undefined, custom: { list: [undefined, 1] } }];
  // A getter that throws once makes the packing give up, so the module reads the same values one
  // by one: the two ways must agree.
  const valueByValue = (list) => {
    let thrown = false;
    const first = new Proxy(list[0], {
      get(target, key, receiver) {
        if (!thrown && key === "title") {
          thrown = true;
          throw new Error("once");
        }
        return Reflect.get(target, key, receiver);
      },
    });
    return [first, ...list.slice(1)];
  };
  for (const style of ["apa", "ieee", "mla", "chicago"]) {
    for (const format of ["text", "html"]) {
      const packed = csl.renderReferences(items, null, { style, format });
      assert.equal(packed.length, items.length);
      assert.deepEqual(csl.renderReferences(valueByValue(items), null, { style, format }), packed, style);
    }
  }
});
