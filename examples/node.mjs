// The same job as the Worker, as a Node server: POST {question, sources} to it and read the
// split, cited answer as server-sent events.
//   BASE_URL=http://127.0.0.1:8081/v1 MODEL=citeflow-local node examples/node.mjs
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { citedAnswerResponse } from "./cited-sse.mjs";

const config = {
  baseUrl: process.env.BASE_URL,
  model: process.env.MODEL ?? "citeflow-local",
  apiKey: process.env.API_KEY ?? "local",
  style: process.env.STYLE,
};

const server = createServer(async (req, res) => {
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers: req.headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : Readable.toWeb(req),
    duplex: "half",
  });
  const response = await citedAnswerResponse(request, config, { signal: abort.signal });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) Readable.fromWeb(response.body).pipe(res);
  else res.end();
});
server.listen(
  Number(process.env.PORT ?? 8787),
  "127.0.0.1",
  () => console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
