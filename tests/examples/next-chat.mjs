// The example chat app (examples/next-chat) as a user runs it: copies it into target/next-chat
// (where scripts/next-chat-setup.sh installed its dependencies), installs a fresh `npm pack` of
// pkg/ as its citeflow, runs `next build`, then serves it with `next start` twice: on the real
// local model (SmolLM2 through scripts/model-server.mjs, as `make demo` runs it) and on the
// scripted stand-in (scripts/local-model.mjs, which sends <think> reasoning), each chosen by the
// app's own BASE_URL and MODEL variables. In headless Chromium it asks a question and checks what
// a user sees: the answer text; each citation chip is its marker's own text ([N]) and names,
// on hover and on keyboard focus, the corpus source N; no marker naming a source is left
// without its chip; the reasoning part closed once done; the APA reference list holding
// exactly the cited sources. What SmolLM2 writes varies, so the checks are about form.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalModel } from "../../scripts/local-model.mjs";
import { startModelServer } from "../../scripts/model-server.mjs";
import { launch } from "../smoke/engines/chromium.mjs";
import { freePort, spawnGroup, within } from "../smoke/engines/processes.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APP = join(ROOT, "examples", "next-chat");
const DIR = join(ROOT, "target", "next-chat");
const NEXT = join(DIR, "node_modules", "next", "dist", "bin", "next");
const BUILD_MS = 300_000;
// A generous bound on one answer: the model runs on one CPU thread of a possibly busy machine.
const ANSWER_MS = 180_000;
const QUESTION = "How old is the Eiffel Tower?";
const started = Date.now();

const fail = (what, value) => {
  throw new Error(`next-chat: ${what}: ${JSON.stringify(value)}`);
};

// The app's sources are the demo's corpus, passage and CSL item alike: no fact of its own.
const corpus = JSON.parse(readFileSync(join(ROOT, "www", "corpus.json"), "utf8")).chunks;
const sources = JSON.parse(readFileSync(join(APP, "sources.json"), "utf8"));
const expected = corpus.map((c) => ({ content: c.content, metadata: c.csl }));
if (JSON.stringify(sources) !== JSON.stringify(expected)) fail("sources.json is not www/corpus.json", sources);
const TITLES = sources.map((s) => s.metadata.title);

if (!existsSync(join(DIR, "node_modules", ".package-lock.json"))) {
  fail("dependencies missing", "run bash scripts/next-chat-setup.sh (scripts/setup.sh does)");
}

// The app as committed, then the package as users get it (packed), replacing the installed one.
cpSync(APP, DIR, { recursive: true, filter: (src) => !/[/\\](node_modules|\.next)$/.test(src) });
const packs = join(DIR, "packs");
rmSync(packs, { recursive: true, force: true });
mkdirSync(packs);
const [{ filename }] = JSON.parse(
  execFileSync("npm", ["pack", join(ROOT, "pkg"), "--pack-destination", packs, "--json", "--loglevel=error"], {
    encoding: "utf8",
  }),
);
const installed = join(DIR, "node_modules", "citeflow");
rmSync(installed, { recursive: true, force: true });
mkdirSync(installed);
execFileSync("tar", ["-xzf", join(packs, filename), "-C", installed, "--strip-components=1"]);

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
try {
  execFileSync(process.execPath, [NEXT, "build"], { cwd: DIR, env, stdio: "pipe", timeout: BUILD_MS });
} catch (e) {
  fail("next build", String(e.stdout ?? "").slice(-4000) + String(e.stderr ?? "").slice(-4000));
}
const built = Date.now();

/** `next start` with the model variables; resolves once it answers, with its URL and stop(). */
async function startApp(modelEnv) {
  const port = await freePort();
  let output = "";
  const app = spawnGroup(process.execPath, [NEXT, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: DIR,
    env: { ...env, ...modelEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  app.child.stdout.on("data", (d) => output += d);
  app.child.stderr.on("data", (d) => output += d);
  const url = `http://127.0.0.1:${port}/`;
  await within(
    60_000,
    `next start (${output})`,
    (async () => {
      for (;;) {
        try {
          if ((await fetch(url)).ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })(),
  );
  return { url, stop: app.stop, output: () => output };
}

/** Asks the question on the page at `url`; returns what the page shows, checked for form. */
async function ask(browser, url, name) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("response", (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  try {
    await page.goto(url);
    await page.getByLabel("Question").fill(QUESTION);
    await page.getByRole("button", { name: "Ask" }).click();
    await page.waitForFunction(
      () => {
        const status = document.querySelector("main").dataset.status;
        return status === "error" || (status === "ready" && document.querySelector(".answer"));
      },
      null,
      { timeout: ANSWER_MS },
    );
    const status = await page.locator("main").getAttribute("data-status");
    if (status !== "ready") fail(`${name}: the chat failed`, await page.locator("[role=alert]").allTextContents());
    // The references render once the CSL module has loaded (it starts loading with the page).
    const cited = await page.locator(".answer .text a.chip").count();
    if (cited > 0) await page.waitForSelector(".references li");

    const shown = await page.evaluate(() => {
      const answer = document.querySelector(".answer");
      return {
        texts: [...answer.querySelectorAll(".text")].map((p) => ({
          text: p.textContent,
          // The paragraph's text with the chips left out: markers a chip did not take.
          bare: [...p.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(""),
        })),
        chips: [...answer.querySelectorAll(".text a.chip")].map((a) => ({
          text: a.textContent,
          href: a.getAttribute("href"),
          tip: a.dataset.tip,
          label: a.getAttribute("aria-label"),
        })),
        reasoning: [...answer.querySelectorAll("details.reasoning")].map((d) => ({
          open: d.open,
          summary: d.querySelector("summary")?.textContent,
          text: d.textContent,
        })),
        references: [...answer.querySelectorAll(".references li")].map((li) => ({ id: li.id, text: li.textContent })),
      };
    });
    const answerText = shown.texts.map((t) => t.text).join("");
    if (!answerText.trim() || /<\/?think|think>/.test(answerText)) fail(`${name}: answer`, shown.texts);

    // Each chip replaces its marker: its text is the marker, naming the source(s) it cites.
    for (const chip of shown.chips) {
      const named = /^\[(\d+(?:\s*,\s*\d+)*)\]$/.exec(chip.text)?.[1].split(",").map(Number);
      const tips = chip.tip?.split("; ") ?? [];
      const ok = named && tips.length > 0 && chip.href === `#ref-${named[0]}` &&
        tips.every((t) => named.some((n) => t === `${n}. ${TITLES[n - 1]}`)) &&
        chip.label === `${chip.text} ${chip.tip}`;
      if (!ok) fail(`${name}: a chip that is not its marker or names no corpus source`, chip);
    }
    // No marker naming a source is left as plain text: every one became a chip.
    const leftover = shown.texts.flatMap((t) => [...t.bare.matchAll(/\[(\d+)\]/g)])
      .filter((m) => Number(m[1]) >= 1 && Number(m[1]) <= TITLES.length);
    if (leftover.length) fail(`${name}: markers without a chip`, shown.texts);

    // Reasoning, when sent: its own part, closed once done, no tags in it.
    if (shown.reasoning.some((r) => r.open || r.summary !== "Reasoning" || /think>/.test(r.text))) {
      fail(`${name}: reasoning not closed when done`, shown.reasoning);
    }

    // The references: exactly the cited sources, each an APA entry of its corpus item.
    const citedIds = [...new Set(shown.chips.map((c) => c.href.slice("#ref-".length)))].sort();
    const referenceIds = shown.references.map((r) => r.id.slice("ref-".length)).sort();
    if (JSON.stringify(citedIds) !== JSON.stringify(referenceIds)) fail(`${name}: references`, { shown });
    for (const r of shown.references) {
      const title = TITLES[Number(r.id.slice("ref-".length)) - 1];
      if (!r.text.toLowerCase().includes(title.toLowerCase()) || !/\(\d{4}[^)]*\)\./.test(r.text)) {
        fail(`${name}: not an APA entry of its source`, r);
      }
    }

    // The tooltip: the chip's source on hover and on keyboard focus (Tab, not a click).
    if (shown.chips.length) {
      const tipOf = (index) =>
        page.locator(".answer .text a.chip").nth(index).evaluate((a) => getComputedStyle(a, "::after").content);
      await page.locator(".answer .text a.chip").first().hover();
      const hovered = await tipOf(0);
      if (hovered !== JSON.stringify(shown.chips[0].tip)) fail(`${name}: tooltip on hover`, hovered);
      await page.mouse.move(0, 0);
      if ((await tipOf(0)) !== "none") fail(`${name}: tooltip left shown`, await tipOf(0));
      await page.locator("h1").click();
      let focused = null;
      for (let i = 0; i < 40 && focused === null; i++) {
        await page.keyboard.press("Tab");
        focused = await page.evaluate(() => {
          const chips = [...document.querySelectorAll(".answer .text a.chip")];
          const at = chips.indexOf(document.activeElement);
          return at === -1 ? null : at;
        });
      }
      if (focused === null) fail(`${name}: no chip reached with Tab`, "");
      const onFocus = await tipOf(focused);
      if (onFocus !== JSON.stringify(shown.chips[focused].tip)) fail(`${name}: tooltip on keyboard focus`, onFocus);
    }
    if (errors.length) fail(`${name}: console errors`, errors);
    mkdirSync(join(ROOT, "tests", "out"), { recursive: true });
    await page.screenshot({ path: join(ROOT, "tests", "out", `next-chat-${name}.png`), fullPage: true });
    return shown;
  } finally {
    await page.close();
  }
}

/** Serves the app on one model and asks; stops the app whatever happens. */
async function run(browser, name, modelEnv) {
  const app = await startApp(modelEnv);
  try {
    const t0 = Date.now();
    const shown = await ask(browser, app.url, name);
    console.log(
      `next-chat ok: ${name}: ${shown.chips.length} chips, ${shown.reasoning.length} reasoning parts, ` +
        `${shown.references.length} references (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    return shown;
  } catch (e) {
    e.message += `\nnext start output:\n${app.output().slice(-3000)}`;
    throw e;
  } finally {
    await app.stop();
  }
}

const browser = await launch();
try {
  // The real small model: whatever it writes, the page's form holds.
  const real = await startModelServer();
  try {
    await run(browser, "smollm2", { BASE_URL: real.base, MODEL: "SmolLM2-135M-Instruct" });
  } finally {
    await real.close();
  }
  // The scripted stand-in: reasoning, then an answer citing sources 1 and 2.
  const scripted = await startLocalModel({ delayMs: 1 });
  try {
    const shown = await run(browser, "scripted", { BASE_URL: scripted.base, MODEL: "citeflow-local" });
    if (shown.reasoning.length === 0 || shown.chips.length === 0 || shown.references.length === 0) {
      fail("scripted: reasoning, chips and references expected", shown);
    }
  } finally {
    scripted.close();
  }
} finally {
  await browser.close();
}
console.log(
  `next-chat: build ${((built - started) / 1000).toFixed(0)} s, total ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
