// Drives the demo page in headless Chromium against the built-in local model server: asks a
// question, waits for the stream, and checks the relevance table, the reasoning panel, that
// each citation chip points to its reference and shows its source on focus and hover, that
// switching the style re-renders the list, that there are no console errors; saves a
// screenshot at phone width.
import { mkdirSync } from "node:fs";
import { startServer } from "../../scripts/serve.mjs";
import { launch } from "./launch.mjs";

const fail = (what, value) => {
  throw new Error(`demo: ${what}: ${JSON.stringify(value)}`);
};

const server = await startServer({ delayMs: 3 });
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.address().port}/www/`);
  await page.waitForSelector("body[data-ready=true]");
  await page.getByLabel("Question", { exact: true }).fill("How old is the Eiffel Tower?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='1']", { timeout: 20000 });
  const notice = await page.locator("#notice").textContent();
  if (notice) fail("the page reported", notice);

  // The relevance filter's scores, highest first; the Eiffel chunks kept, the others dropped.
  const rows = await page.locator("#relevance-body tr").evaluateAll((trs) => trs.map((tr) => [tr.dataset.chunk, Number(tr.children[1].textContent), tr.children[2].textContent]));
  if (rows.length !== 8 || rows.some((r, i) => i > 0 && r[1] > rows[i - 1][1])) fail("relevance rows, sorted by score", rows);
  const kept = rows.filter((r) => r[2] === "kept").map((r) => r[0]).sort();
  if (JSON.stringify(kept) !== JSON.stringify(["loyrette", "toureiffel"])) fail("kept chunks", rows);

  // Reasoning apart from the answer, no tag fragments anywhere.
  const reasoning = await page.locator("#reasoning").textContent();
  const answer = await page.locator("#answer").textContent();
  if (!reasoning.includes("eiffel") || !answer.includes("1889") || /<\/?t|think>/.test(answer + reasoning)) fail("reasoning / answer", { reasoning, answer });
  if ((await page.locator("#reasoning-state").textContent()) !== "done") fail("reasoning state", await page.locator("#reasoning-state").textContent());

  // Each chip links to its entry; focus and hover show the cited source.
  const chips = page.locator("#answer a.citeflow-cite");
  const links = await chips.evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));
  const entries = await page.locator("#references li").evaluateAll((lis) => lis.map((li) => [li.id, li.textContent]));
  const linked = links.length === 2 && links.every(([text, href]) => href === `#ref-${text.slice(1, -1)}` && entries.some(([id]) => `#${id}` === href));
  if (!linked) fail("chips → references", { links, entries });
  if (!entries.some(([, t]) => t.includes("Loyrette, H. (1985)"))) fail("APA entries", entries);
  await chips.first().focus();
  const tipOnFocus = await page.locator("#cite-tip").evaluate((t) => ({ hidden: t.hidden, text: t.textContent }));
  if (tipOnFocus.hidden || !/^\[1\] /.test(tipOnFocus.text)) fail("tooltip on focus", tipOnFocus);
  await page.keyboard.press("Escape");
  if (!(await page.locator("#cite-tip").evaluate((t) => t.hidden))) fail("Escape hides the tooltip", "");
  await chips.nth(1).hover();
  const tipOnHover = await page.locator("#cite-tip").textContent();
  if (!tipOnHover.startsWith("[2] ")) fail("tooltip on hover", tipOnHover);

  // Switching the style re-renders the list.
  await page.getByLabel("Reference style").selectOption("ieee");
  await page.waitForFunction(() => document.getElementById("references").dataset.style === "ieee");
  const ieee = await page.locator("#references li").allTextContents();
  if (!ieee.some((t) => /^\[\d\] H\. Loyrette/.test(t))) fail("IEEE entries", ieee);

  // A question the corpus cannot answer says so instead of inventing sources.
  await page.getByLabel("Question", { exact: true }).fill("What is the capital of Peru?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='2']", { timeout: 20000 });
  if (!(await page.locator("#notice").textContent()).includes("No chunk passed")) fail("no relevant chunk notice", await page.locator("#notice").textContent());

  if (errors.length) fail("console errors", errors);
  mkdirSync("tests/out", { recursive: true });
  await page.getByLabel("Question", { exact: true }).fill("How old is the Eiffel Tower?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='3']", { timeout: 20000 });
  await page.screenshot({ path: "tests/out/demo.png", fullPage: true });
  console.log("demo ok: relevance, reasoning, chips with sources, style switch (screenshot tests/out/demo.png)");
} finally {
  await browser.close();
  server.close();
}
