// The driver of one provider call. The core's call machine (src/call/) holds every rule: which
// redirects are followed, the limits, what a failure means, when to try again and the error
// given up with (with no secret in it); this file only fetches, reads bodies, runs the
// attempt's timer and waits, and cancels.
import * as core from "../gen/citeflow.js";
import { freeObject } from "./instance.js";

const encoder = new TextEncoder();

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A body as text, read as it arrives and never past `limit` bytes: `[text, complete]`. */
async function readBody(res, limit) {
  const body = res.body;
  if (!body || typeof body.getReader !== "function") {
    // A fetch of your own may answer without a body stream: read whole, then checked.
    const text = await res.text();
    return encoder.encode(text).length <= limit ? [text, true] : [text.slice(0, limit), false];
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts = [];
  let size = 0;
  let complete = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      const chunk = typeof value === "string" ? encoder.encode(value) : value;
      if (size + chunk.byteLength > limit) {
        parts.push(decoder.decode(chunk.subarray(0, limit - size), { stream: true }));
        break;
      }
      size += chunk.byteLength;
      parts.push(decoder.decode(chunk, { stream: true }));
    }
  } finally {
    if (!complete) reader.cancel().catch(() => {});
  }
  parts.push(decoder.decode());
  return [parts.join(""), complete];
}

const header = (res, name) => res.headers?.get?.(name) ?? "";

const absoluteUrl = (url) => {
  try {
    return new URL(url, globalThis.location?.href);
  } catch {
    return null;
  }
};

/** Where an answer's Location points: `[href, origin, sameOrigin]` (none: no href). */
function locationOf(res, url) {
  const location = res.type === "opaqueredirect" ? "" : header(res, "location");
  if (!location) return ["", "", false];
  try {
    const from = absoluteUrl(url);
    const to = new URL(location, from ?? undefined);
    return [to.href, to.origin, from !== null && to.origin === from.origin];
  } catch {
    return ["", "", false];
  }
}

/**
 * One call of `http` (`{provider, url, headers, body}`) through `transport`, cancelled by
 * `signal`: `{text, http}` for a whole answer, `{body, http, done}` for a stream (`done()`
 * unhooks the signal once the stream is over).
 */
export async function call({ http, transport, signal, stream }) {
  const { headers, fetchFn, timeoutMs, maxRetries, maxResponseBytes, secrets } = transport;
  const machine = new core.CallMachine(
    http.provider,
    http.url,
    timeoutMs,
    maxRetries,
    maxResponseBytes,
    stream,
    secrets,
  );
  // Your headers after the provider's, replacing any of the same name (names are case-blind).
  const merged = new Map();
  for (const [name, value] of [...http.headers, ...headers]) merged.set(name.toLowerCase(), value);
  const init = { method: "POST", headers: Object.fromEntries(merged), body: http.body, redirect: "manual" };
  let controller = null;
  let timer;
  let timedOut = false;
  let res = null;
  let text = "";
  const onAbort = () => controller?.abort(signal.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  // What a fetch or a body read that threw means: the caller's abort passes as it is.
  const failed = (e) => {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) return machine.timedOut();
    // Node's fetch says why in `cause` (ECONNREFUSED, ENOTFOUND, …); browsers give none.
    const cause = e?.cause !== null && typeof e?.cause === "object" ? e.cause : {};
    machine.networkFailed(
      String(e?.message ?? e),
      typeof cause.code === "string" ? cause.code : "",
      typeof cause.message === "string" ? cause.message : "",
    );
  };
  let handedOver = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const [step, value, amount] = machine.next();
      if (res !== null && step !== "read" && step !== "stream") {
        res.body?.cancel().catch(() => {}); // an answer not read (a redirect): let go
        res = null;
      }
      if (step === "send") {
        if (amount !== undefined) {
          clearTimeout(timer);
          controller = new AbortController();
          timedOut = false;
          const attempt = controller;
          timer = setTimeout(() => {
            timedOut = true;
            attempt.abort();
          }, amount);
        }
        try {
          res = await fetchFn(value, { ...init, signal: controller.signal });
        } catch (e) {
          failed(e);
          continue;
        }
        machine.answered(
          res.status,
          !res.body,
          res.type === "opaqueredirect",
          header(res, "content-type"),
          header(res, "retry-after"),
          ...locationOf(res, value),
        );
      } else if (step === "read") {
        try {
          const [read, complete] = await readBody(res, amount);
          res = null;
          text = read;
          machine.body(text, complete);
        } catch (e) {
          res = null;
          failed(e);
        }
      } else if (step === "wait") {
        clearTimeout(timer);
        await sleep(amount, signal);
        machine.waited();
      } else if (step === "stream") {
        clearTimeout(timer); // the timeout covers the wait for an answer, not a long stream
        handedOver = true;
        return { body: res.body, http, done };
      } else if (step === "done") {
        // A stream request answered with JSON: decoded as a stream all the same, which says
        // what is wrong with it (a whole answer is not a stream).
        return stream ? { body: new Response(text).body, http, done } : { text, http };
      } else {
        throw value; // failed: the machine's error
      }
    }
  } finally {
    freeObject(machine); // its instance may have been replaced since (INSTANCE_RESET)
    if (!handedOver) done();
  }
}
