// The peers the benchmarks compare against, set up the way a user would use them.
import { extractReasoningMiddleware } from "ai";

/**
 * The AI SDK reasoning middleware's per-chunk transform, without the TransformStream around
 * it: captured from the stream the middleware builds, so it can be called directly.
 */
export async function aiSdkReasoningTransform() {
  const Real = globalThis.TransformStream;
  let captured = null;
  globalThis.TransformStream = class {
    constructor(transformer) {
      captured = transformer;
    }
  };
  try {
    await extractReasoningMiddleware({ tagName: "think" }).wrapStream({
      doStream: async () => ({ stream: { pipeThrough: (t) => t } }),
    });
  } finally {
    globalThis.TransformStream = Real;
  }
  return captured;
}
