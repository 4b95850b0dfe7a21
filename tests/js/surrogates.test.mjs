// Chunks cut anywhere in UTF-16, inside surrogate pairs too, with empty chunks between: the
// same events as the whole text. (JS strings are UTF-16: a network chunk decoded on its own can
// end with the first half of an emoji.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { CitationParser, ThinkTagOutputTransformer } from "citeflow";
import { merged, runStream } from "./helpers.mjs";

/** Every split of `text` into two pieces, with empty chunks around the cut. */
function* cutsEverywhere(text) {
  for (let i = 0; i <= text.length; i++) yield ["", text.slice(0, i), "", text.slice(i), ""];
}

/** Three pieces: every pair of cuts (for short texts). */
function* doubleCuts(text) {
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) yield [text.slice(0, i), "", text.slice(i, j), text.slice(j)];
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Ids carry a per-instance prefix; the shape of the stream is what must match.
const shape = (events) => merged(events).map(({ type, value }) => ({ type, value }));
const textOf = (events, type) => events.filter((e) => e.type === type).map((e) => e.value).join("");

test("an astral-plane custom tag is found however the chunks cut it", () => {
  const text = "a😀plan 🌍 here🙂b 🌍 [1]";
  const options = { tags: [["😀", "🙂"]] };
  const whole = shape(runStream(new ThinkTagOutputTransformer(options), [text]));
  assert.equal(textOf(whole, "thinking"), "plan 🌍 here");
  assert.equal(textOf(whole, "response"), "ab 🌍 [1]");
  for (const chunks of doubleCuts(text)) {
    const out = shape(runStream(new ThinkTagOutputTransformer(options), chunks));
    assert.deepEqual(out, whole, JSON.stringify(chunks));
  }
});

test("no lone surrogate survives in any event when a pair is cut", () => {
  const text = "<think>🙂🙂</think>🌍🌍 done";
  for (const chunks of cutsEverywhere(text)) {
    const out = runStream(new ThinkTagOutputTransformer(), chunks);
    for (const e of out) assert.ok(!LONE_SURROGATE.test(e.value), `${JSON.stringify(chunks)}: ${JSON.stringify(e)}`);
    assert.equal(textOf(out, "response"), "🌍🌍 done", JSON.stringify(chunks));
    assert.equal(textOf(out, "thinking"), "🙂🙂");
  }
});

test("citation spans stay exact in UTF-16 when emoji are cut between chunks", () => {
  const text = "Paris 🗼 is old [1]. Rome 🏛️ is older [2][3].";
  const whole = runStream(new CitationParser({ sourceCount: 3 }), [text]);
  const citations = (events) => events.filter((e) => e.type === "citation").map((e) => e.value);
  for (const c of citations(whole)) assert.equal(text.slice(c.span[0], c.span[1]).startsWith("["), true);
  for (const chunks of cutsEverywhere(text)) {
    const out = runStream(new CitationParser({ sourceCount: 3 }), chunks);
    assert.deepEqual(citations(out), citations(whole), JSON.stringify(chunks));
    assert.equal(textOf(out, "response"), text);
  }
});
