// Shared by the integration tests: the real model server's base URL, invokers over it, and the
// sources the prompts cite. `node tests/integration/run.mjs` starts one server for all the test
// files and passes its base in CITEFLOW_MODEL_BASE; a file run on its own
// (`node --test tests/integration/grammar.test.mjs`) starts a server in its own process.
// The models come from `bash scripts/models.sh`.
import { after } from "node:test";
import { buildDMInvoker, buildEMInvoker, buildLMInvoker } from "citeflow";
import { startModelServer } from "../../scripts/model-server.mjs";

async function serverBase() {
  if (process.env.CITEFLOW_MODEL_BASE) return process.env.CITEFLOW_MODEL_BASE;
  const server = await startModelServer();
  after(() => server.close());
  return server.base;
}

export const base = await serverBase();
const settings = { baseUrl: base, apiKey: "local" };
export const lm = buildLMInvoker("openai-compatible/SmolLM2-135M-Instruct", settings);
export const em = buildEMInvoker("openai-compatible/all-MiniLM-L6-v2", settings);
/** A decision model over the language model; `fetch` to watch its calls. */
export const dm = (fetch) => buildDMInvoker("openai-compatible/SmolLM2-135M-Instruct", { ...settings, fetch });

export const SOURCES = [
  {
    content: "The Eiffel Tower was completed in March 1889. It is about 330 metres tall.",
    metadata: {
      type: "book",
      title: "Gustave Eiffel",
      author: [{ family: "Loyrette", given: "Henri" }],
      publisher: "Rizzoli",
      issued: { "date-parts": [[1985]] },
    },
  },
  {
    content: "Honeybee foragers tell their nestmates where food is with a waggle dance.",
    metadata: {
      type: "book",
      title: "The dance language and orientation of bees",
      author: [{ family: "von Frisch", given: "Karl" }],
      publisher: "Harvard University Press",
      issued: { "date-parts": [[1967]] },
    },
  },
];

/** Citeformer's way of listing sources, for tests that build their own messages. */
export const sourcesPrompt = (sources) =>
  sources.map((s, i) => `Source ${i + 1}: ${s.metadata.title}\n${s.content}`).join("\n\n");

/** Every value of a web stream (a reader: the way that works in every runtime). */
export async function drain(stream) {
  const reader = stream.getReader();
  const out = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
  return out;
}

/** The answer text of an LMOutput. */
export const textOf = (output) => output.outputs.filter((o) => o.type === "text").map((o) => o.output).join("");

/** A raw call to the server, for what the invokers do not expose. */
export async function post(path, body) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text(),
  };
}
