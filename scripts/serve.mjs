#!/usr/bin/env node
// A small static server for the demo and the browser tests: serves the repository (so the
// page can import /pkg/dist/browser.js) with the right MIME types, on localhost only, and
// mounts a local model server at /v1: the real one (scripts/model-server.mjs: SmolLM2-135M and
// MiniLM on the CPU) or the scripted stand-in (scripts/local-model.mjs).
//
//   node scripts/serve.mjs                          # the demo on the real model (run `make demo`)
//   CITEFLOW_MODEL=scripted node scripts/serve.mjs  # the scripted stand-in (or --scripted)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { handleLocalModel } from "./local-model.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
};

/**
 * Static files from `root`, and a local model under /v1: `model` is "scripted" (the default:
 * scripts/local-model.mjs, instant; `delayMs` between its tokens), "real" (scripts/model-server.mjs,
 * loaded first; freed when the server closes) or "none".
 */
export async function startServer({ port = 0, host = "127.0.0.1", root = ROOT, model = "scripted", delayMs } = {}) {
  let handleModel = async () => false;
  let release = () => {};
  if (model === "scripted") {
    handleModel = (req, res) => handleLocalModel(req, res, { delayMs });
  } else if (model === "real") {
    const real = await import("./model-server.mjs");
    const models = await real.loadModels();
    handleModel = (req, res) => real.handleModel(models, req, res);
    release = () => models.dispose();
  } else if (model !== "none") {
    throw new Error(`model must be "scripted", "real" or "none"; got ${JSON.stringify(model)}`);
  }
  const server = createServer(async (req, res) => {
    if (await handleModel(req, res)) return;
    try {
      const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
      let file = normalize(join(root, path));
      if (!file.startsWith(root.endsWith(sep) ? root : root + sep) && file !== root) {
        res.writeHead(403).end("forbidden");
        return;
      }
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  server.on("close", release);
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 8080);
  const model = process.argv.includes("--scripted") ? "scripted" : (process.env.CITEFLOW_MODEL ?? "real");
  let server;
  try {
    server = await startServer({ port, model });
  } catch (e) {
    console.error(`citeflow demo: the ${model} model did not start: ${e.message}`);
    if (model === "real") {
      console.error("On a machine where it cannot load, run the scripted stand-in: CITEFLOW_MODEL=scripted make demo");
    }
    process.exit(1);
  }
  const at = `http://127.0.0.1:${server.address().port}`;
  const what = model === "real" ? "SmolLM2-135M-Instruct and all-MiniLM-L6-v2 on the CPU" : "the scripted stand-in";
  console.log(`citeflow demo: ${at}/www/  (local model: ${at}/v1, ${what}; Ctrl-C to stop)`);
}
