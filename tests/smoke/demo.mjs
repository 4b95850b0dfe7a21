// Drives the demo page in headless Chromium against the built-in local model server: asks a
// question, waits for the stream, and checks the relevance table, the reasoning panel, that
// each citation chip points to its reference and shows its source on focus and hover, that
// switching the style re-renders the list, that controls are named and text contrast meets
// WCAG AA in light and dark schemes, that the provider form works, that there are no console
// errors; saves a screenshot at phone width.
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

  // Every control has an accessible name, and text meets WCAG AA contrast (4.5:1) on its background.
  const unnamed = await page.locator("input, select, button, summary, [tabindex]").evaluateAll((els) => els.filter((el) => {
    const labelled = el.labels?.length || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || el.textContent.trim();
    return !labelled;
  }).map((el) => el.outerHTML.slice(0, 80)));
  if (unnamed.length) fail("controls without an accessible name", unnamed);
  const contrastOf = () => page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const [r, g, b] = rgb(c).map((v) => {
        const x = v / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        if (!/rgba\(.*, 0\)$/.test(c) && c !== "transparent") return c;
      }
      return "rgb(255, 255, 255)";
    };
    const ratio = (el) => {
      const [a, b] = [lum(getComputedStyle(el).color), lum(background(el))].sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    };
    const checked = ["#answer", "#answer a.citeflow-cite", "#reasoning", ".relevance tr.dropped td", ".relevance tr.kept td:last-child", ".hint", "#go", "#references li", "#stats"];
    return checked.map((sel) => [sel, document.querySelector(sel) ? ratio(document.querySelector(sel)) : null]);
  });
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    const low = (await contrastOf()).filter(([, r]) => r === null || r < 4.5);
    if (low.length) fail(`${colorScheme} scheme: contrast below 4.5:1 (or element missing)`, low);
  }
  await page.emulateMedia({ colorScheme: "light" });

  // A question the corpus cannot answer says so instead of inventing sources.
  await page.getByLabel("Question", { exact: true }).fill("What is the capital of Peru?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='2']", { timeout: 20000 });
  if (!(await page.locator("#notice").textContent()).includes("No chunk passed")) fail("no relevant chunk notice", await page.locator("#notice").textContent());

  // The same page against a provider entered in the form (here the local server, by URL).
  await page.getByText("Use a real provider (optional)").click();
  await page.getByLabel("Base URL", { exact: true }).fill(new URL("/v1", page.url()).href);
  await page.getByLabel("Model", { exact: true }).fill("citeflow-local");
  await page.getByLabel("API key", { exact: true }).fill("sk-demo");
  await page.getByLabel("Question", { exact: true }).fill("How do honeybees tell each other where food is?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='3']", { timeout: 20000 });
  if (!(await page.locator("#answer").textContent()).includes("waggle dance")) fail("answer through the provider form", await page.locator("#answer").textContent());
  await page.getByLabel("Base URL", { exact: true }).fill("");

  if (errors.length) fail("console errors", errors);
  mkdirSync("tests/out", { recursive: true });
  await page.getByLabel("Question", { exact: true }).fill("How old is the Eiffel Tower?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForSelector("body[data-answered='4']", { timeout: 20000 });
  await page.screenshot({ path: "tests/out/demo.png", fullPage: true });
  console.log("demo ok: relevance, reasoning, chips with sources, style switch (screenshot tests/out/demo.png)");
} finally {
  await browser.close();
  server.close();
}
