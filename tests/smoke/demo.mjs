// Drives the demo page in headless Chromium: streams an answer, checks reasoning and answer
// came out apart with no tag fragments, no console errors, and saves a screenshot.
import { mkdirSync } from "node:fs";
import { startServer } from "../../scripts/serve.mjs";
import { launch } from "./launch.mjs";

const server = await startServer();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.address().port}/www/`);
  await page.waitForSelector("body[data-ready=true]");
  await page.getByRole("button", { name: "Stream the answer" }).click();
  await page.waitForFunction(() => document.getElementById("answer").getAttribute("aria-busy") === "false" && document.getElementById("stats").textContent);
  const reasoning = await page.locator("#reasoning").textContent();
  const answer = await page.locator("#answer").textContent();
  if (!reasoning.includes("1889") || !answer.startsWith("The Eiffel Tower") || /<\/?t/.test(answer + reasoning)) {
    throw new Error(`demo: reasoning ${JSON.stringify(reasoning)} / answer ${JSON.stringify(answer)}`);
  }
  // Each citation chip links to its entry in the reference list.
  const chips = await page.locator("#answer a.citeflow-cite").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));
  const entries = await page.locator("#references li").evaluateAll((lis) => lis.map((li) => [li.id, li.textContent]));
  const ok = chips.length === 2 && chips.every(([text, href]) => href === `#ref-${text.slice(1, -1)}` && entries.some(([id]) => `#${id}` === href));
  if (!ok) throw new Error(`demo: chips ${JSON.stringify(chips)} / references ${JSON.stringify(entries)}`);
  if (!entries.some(([, t]) => t.includes("Loyrette, H. (1985)"))) throw new Error(`demo: APA entries expected, got ${JSON.stringify(entries)}`);
  // Switching the style re-renders the list.
  await page.getByLabel("Reference style").selectOption("ieee");
  await page.waitForFunction(() => document.getElementById("references").dataset.style === "ieee");
  const ieee = await page.locator("#references li").allTextContents();
  if (!ieee.some((t) => t.startsWith("[2] H. Loyrette"))) throw new Error(`demo: IEEE entries expected, got ${JSON.stringify(ieee)}`);
  if (errors.length) throw new Error(`demo page errors: ${errors.join("; ")}`);
  mkdirSync("tests/out", { recursive: true });
  await page.screenshot({ path: "tests/out/demo.png", fullPage: true });
  console.log("demo ok: reasoning and answer apart (screenshot tests/out/demo.png)");
} finally {
  await browser.close();
  server.close();
}
