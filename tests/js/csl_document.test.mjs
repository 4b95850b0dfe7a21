// CslDocument of "citeflow/csl": the JS class drives the engine's document (src/csl/document.rs,
// tested in tests/csl_document.rs); here, what crosses the boundary: the shapes returned, the
// options read, and every refusal as a CiteflowError with its code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CslDocument } from "citeflow/csl";

const items = [
  {
    id: "raven",
    type: "book",
    title: "The Raven",
    author: [{ family: "Poe", given: "Edgar Allan" }],
    issued: { "date-parts": [[1845]] },
  },
  {
    id: "gold",
    type: "book",
    title: "The Gold-Bug",
    author: [{ family: "Poe", given: "Edgar Allan" }],
    issued: { "date-parts": [[1845]] },
  },
  {
    id: 3,
    type: "book",
    title: "Walden",
    author: [{ family: "Thoreau", given: "Henry David" }],
    issued: { "date-parts": [[1854]] },
  },
];

const code = (f) => {
  try {
    f();
  } catch (e) {
    assert.equal(e.name, "CiteflowError", String(e));
    return e.code;
  }
  assert.fail("no error");
};

test("an author-date document: year suffixes come and go with the clusters that need them", () => {
  const doc = new CslDocument({ style: "chicago-author-date", items });
  assert.deepEqual(doc.setCluster({ id: "a", items: [{ id: "raven" }] }), [{ id: "a", text: "(Poe 1845)" }]);
  assert.deepEqual(doc.setCluster({ id: "b", items: [{ id: "gold", locator: 12 }] }, 1), [
    { id: "a", text: "(Poe 1845b)" },
    { id: "b", text: "(Poe 1845a, 12)" },
  ]);
  assert.deepEqual(doc.clusters().map((c) => c.id), ["a", "b"]);
  assert.deepEqual(doc.removeCluster("b"), [{ id: "a", text: "(Poe 1845)" }]);
  const bib = doc.bibliography({ uncited: [3] });
  assert.deepEqual(bib.map((e) => [e.id, e.sourceId]), [["raven", 1], ["3", 3]]);
  assert.match(bib[0].entry, /^Poe, Edgar Allan\. 1845\. The Raven\./);
});

test("html output escapes what items hold", () => {
  const doc = new CslDocument({ style: "ieee", format: "html", items: [{ id: "x", type: "book", title: "<script>" }] });
  const [{ text }] = doc.setCluster({ id: "c", noteIndex: 0, items: [{ id: "x" }] });
  assert.equal(text, "[1]");
  assert.doesNotMatch(doc.bibliography()[0].entry, /<script>/);
});

test("refusals carry a code and leave the document as it was", () => {
  const doc = new CslDocument({ style: "apa", items });
  doc.setCluster({ id: "a", items: [{ id: "raven" }] });
  const before = doc.clusters();
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "nope" }] })), "UNKNOWN_ITEM");
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "raven" }] }, 2)), "INDEX_OUT_OF_RANGE");
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "raven" }] }, -1)), "INDEX_OUT_OF_RANGE");
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "raven" }] }, 0.5)), "INVALID_OPTION");
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "raven" }] }, "0")), "INVALID_OPTION");
  assert.equal(code(() => doc.setCluster({ id: "b", items: [], note: 1 })), "INVALID_OPTION");
  assert.match(
    (() => {
      try {
        doc.setCluster({ id: "b", items: [{ id: "raven", "suppress-author": true }] });
      } catch (e) {
        return e.message;
      }
    })(),
    /cluster\.items\[0\]\.suppress-author/,
  );
  assert.equal(code(() => doc.setCluster({ id: "b", items: [{ id: "raven", locator: () => 1 }] })), "INVALID_OPTION");
  assert.equal(code(() => doc.setCluster(null)), "INVALID_OPTION");
  assert.equal(code(() => doc.removeCluster("zzz")), "UNKNOWN_CLUSTER");
  assert.equal(code(() => doc.removeCluster(1)), "INVALID_OPTION");
  assert.equal(code(() => doc.setItems([{ id: "q", type: "book" }, { id: "q", type: "book" }])), "DUPLICATE_ITEM");
  assert.equal(code(() => doc.setItems([{ type: "book" }])), "INVALID_SOURCE");
  assert.equal(code(() => doc.setItems("raven")), "INVALID_SOURCE");
  assert.equal(code(() => doc.bibliography({ uncited: ["nope"] })), "UNKNOWN_ITEM");
  assert.equal(code(() => doc.bibliography({ cited: [] })), "INVALID_OPTION");
  assert.deepEqual(doc.clusters(), before);
});

test("the constructor reads its options as renderReferences does", () => {
  assert.equal(code(() => new CslDocument({ style: "nope" })), "UNKNOWN_STYLE");
  assert.equal(code(() => new CslDocument({ style: "<style" })), "INVALID_STYLE");
  assert.equal(code(() => new CslDocument({ style: "apa", colour: "red" })), "INVALID_OPTION");
  assert.equal(code(() => new CslDocument({ style: "apa", items: {} })), "INVALID_OPTION");
  assert.equal(
    code(() => new CslDocument({ style: "apa", items: [{ id: "a", type: "book" }, { id: "a", type: "book" }] })),
    "DUPLICATE_ITEM",
  );
  // No options: the default style, no items yet.
  const doc = new CslDocument();
  assert.deepEqual(doc.setItems(items), []);
  assert.deepEqual(doc.setCluster({ id: "c", items: [{ id: 3 }] }), [{ id: "c", text: "(Thoreau, 1854)" }]);
});

test("hostile input is an error with a code, the document lives on, and text is kept as given", () => {
  const poe = { id: "poe", type: "book", title: "T\uFEFFales \uFFFE\uFDD0", author: [{ family: "Poe" }] };
  const doc = new CslDocument({ style: "apa", items: [poe] });
  const cycle = { id: "cycle", type: "book" };
  cycle.self = cycle;
  assert.equal(code(() => doc.setItems([cycle])), "INVALID_SOURCE");
  let deep = {};
  for (let i = 0; i < 100_000; i++) deep = { x: deep };
  assert.equal(code(() => doc.setItems([{ id: "deep", type: "book", note: deep }])), "INVALID_SOURCE");
  const throwing = {
    id: "t",
    get items() {
      throw new Error("boom");
    },
  };
  assert.equal(code(() => doc.setCluster(throwing)), "INVALID_OPTION");
  // A getter that calls the document again: the inner call is refused, the outer one reports it.
  let inner = null;
  const reentrant = {
    id: "r",
    get items() {
      inner = code(() => doc.clusters());
      return [{ id: "poe" }];
    },
  };
  doc.setCluster(reentrant);
  assert.equal(inner, "REENTRANT_CALL");
  assert.deepEqual(doc.setCluster({ id: "huge", items: [{ id: "poe", locator: "9".repeat(1 << 20) }] })[0].id, "huge");
  assert.deepEqual(doc.clusters().map((c) => c.id), ["r", "huge"]);
  // U+FEFF and noncharacters are model or index text like any other: kept, never dropped.
  assert.ok(doc.bibliography()[0].entry.includes("T\uFEFFales \uFFFE\uFDD0"));
});
