// A Cloudflare Worker that proxies a provider's stream and returns it split and cited as
// server-sent events. Settings come from the Worker's environment: BASE_URL, MODEL, API_KEY
// (a secret: `wrangler secret put API_KEY`), STYLE. The key never reaches the browser.
import { citedAnswerResponse } from "./cited-sse.mjs";

export default {
  fetch(request, env) {
    return citedAnswerResponse(request, {
      baseUrl: env.BASE_URL,
      model: env.MODEL,
      apiKey: env.API_KEY,
      style: env.STYLE,
    }, { signal: request.signal });
  },
};
