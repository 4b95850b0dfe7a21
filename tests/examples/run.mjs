// Runs the runtime examples against the built-in local model server: the Cloudflare Worker in
// workerd, the Node server and the Deno server. Each must stream back the reasoning, the
// answer, its citations and the rendered references as server-sent events, and turn a bad
// request into a 400 with a code.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { SSEDecoder } from "citeflow";
import { startLocalModel } from "../../scripts/local-model.mjs";
import { startWorker } from "../support/workerd.mjs";

const corpus = JSON.parse(readFileSync(new URL("../../www/corpus.json", import.meta.url), "utf8")).chunks;
const SOURCES = corpus.slice(0, 3).map((c) => ({ content: c.content, metadata: c.csl }));
const QUESTION = "How old is the Eiffel Tower?";

async function events(response) {
  const decoder = new SSEDecoder();
  const out = [];
  for await (const bytes of response.body) {
    for (const m of decoder.push(bytes)) out.push({ event: m.event, data: JSON.parse(m.data) });
  }
  for (const m of decoder.finish()) out.push({ event: m.event, data: JSON.parse(m.data) });
  return out;
}

/** `down`: the same server configured with a provider that cannot be reached (optional). */
async function check(name, fetchFn, down = null) {
  const res = await fetchFn("/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question: QUESTION, sources: SOURCES }),
  });
  if (res.status !== 200 || !res.headers.get("content-type").startsWith("text/event-stream")) {
    throw new Error(`${name}: answered ${res.status} ${res.headers.get("content-type")}`);
  }
  const got = await events(res);
  const text = (type) => got.filter((e) => e.event === type).map((e) => e.data.value).join("");
  const citations = got.filter((e) => e.event === "citation").map((e) => e.data.value.sourceId);
  const references = got.find((e) => e.event === "references")?.data ?? [];
  const problems = [];
  if (!text("thinking").includes("eiffel")) problems.push(`reasoning ${JSON.stringify(text("thinking"))}`);
  if (!text("response").includes("1889") || /think>/.test(text("response"))) {
    problems.push(`answer ${JSON.stringify(text("response"))}`);
  }
  if (citations.join() !== "1,2") problems.push(`citations ${citations}`);
  if (!references.some((r) => r.entry.startsWith("Loyrette, H. (1985)"))) {
    problems.push(`references ${JSON.stringify(references)}`);
  }
  if (got.at(-1)?.event !== "done") problems.push(`last event ${JSON.stringify(got.at(-1))}`);
  const bad = await fetchFn("/", { method: "POST", body: "{not json" });
  const badBody = await bad.json();
  if (bad.status !== 400 || badBody.error?.code !== "INVALID_JSON") {
    problems.push(`bad request → ${bad.status} ${JSON.stringify(badBody)}`);
  }
  const noSources = await fetchFn("/", {
    method: "POST",
    body: JSON.stringify({ question: QUESTION, sources: "none" }),
  });
  if (noSources.status !== 400) problems.push(`sources "none" → ${noSources.status}`);
  else await noSources.body?.cancel();
  if (down) {
    const failed = await down("/", { method: "POST", body: JSON.stringify({ question: QUESTION, sources: SOURCES }) });
    const failure = await failed.json();
    if (failed.status !== 502 || failure.error?.code !== "NETWORK_ERROR") {
      problems.push(`provider down → ${failed.status} ${JSON.stringify(failure)}`);
    }
  }
  if (problems.length) throw new Error(`${name}: ${problems.join("; ")}`);
  console.log(`example ok: ${name} (${got.length} events)`);
}

/** Starts a server script, waits for its "listening on <url>" line, runs the check, stops it. */
async function checkServer(name, command, args, env) {
  // Its own process group, so that stopping it stops any process a launcher started.
  const child = spawn(command, args, {
    env: { ...process.env, ...env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`${name} exited with ${code} before listening: ${out}`)));
      setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30000);
    });
    await check(name, (path, init) => fetch(new URL(path, url), init));
  } finally {
    process.kill(-child.pid);
  }
}

const model = await startLocalModel({ delayMs: 1 });
const env = { BASE_URL: model.base, MODEL: "citeflow-local", API_KEY: "local" };
try {
  const mf = startWorker(["examples/worker.mjs", "examples/cited-sse.mjs"], env);
  const unreachable = startWorker(["examples/worker.mjs", "examples/cited-sse.mjs"], {
    ...env,
    BASE_URL: "http://127.0.0.1:9/v1",
  });
  try {
    const via = (worker) => (path, init) => worker.dispatchFetch(new URL(path, "http://worker.test"), init);
    await check("Cloudflare Worker (workerd)", via(mf), via(unreachable));
  } finally {
    await mf.dispose();
    await unreachable.dispose();
  }
  await checkServer("Node server", process.execPath, ["examples/node.mjs"], env);
  await checkServer("Deno server", "npx", [
    "--no-install",
    "deno",
    "run",
    "--quiet",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--node-modules-dir=manual",
    "examples/deno.ts",
  ], env);
} finally {
  model.close();
}
