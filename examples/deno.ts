// The same job as the Worker, as a Deno server.
//   BASE_URL=http://127.0.0.1:8081/v1 MODEL=citeflow-local deno run --allow-net --allow-env --allow-read examples/deno.ts
import { citedAnswerResponse } from "./cited-sse.mjs";

const config = {
  baseUrl: Deno.env.get("BASE_URL"),
  model: Deno.env.get("MODEL") ?? "citeflow-local",
  apiKey: Deno.env.get("API_KEY") ?? "local",
  style: Deno.env.get("STYLE"),
};

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 8787),
  onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
}, (request) => citedAnswerResponse(request, config));
