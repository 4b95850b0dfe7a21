#!/usr/bin/env node
// A small static server for the demo and the browser tests: serves the repository (so the
// page can import /pkg/entry/browser.js) with the right MIME types, on localhost only, and
// mounts the built-in local model server (scripts/local-model.mjs) at /v1.
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

/** Static files from `root`, and the built-in local model under /v1 (`localModel: false` to leave it out). */
export function startServer({ port = 0, host = "127.0.0.1", root = ROOT, localModel = true, delayMs } = {}) {
  const server = createServer(async (req, res) => {
    if (localModel && (await handleLocalModel(req, res, { delayMs }))) return;
    try {
      const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
      let file = normalize(join(root, path));
      if (!file.startsWith(root.endsWith(sep) ? root : root + sep) && file !== root) {
        res.writeHead(403).end("forbidden");
        return;
      }
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 8080);
  const server = await startServer({ port });
  const at = `http://127.0.0.1:${server.address().port}`;
  console.log(`citeflow demo: ${at}/www/  (local model: ${at}/v1, Ctrl-C to stop)`);
}
