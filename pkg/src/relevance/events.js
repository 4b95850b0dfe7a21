// Reference events, sent to an event emitter: a function, a WritableStream, or an object with
// emit(event). A writer's or function's failure reaches the caller.
import { citeflowError, describe } from "../errors.js";

let counter = 0;
const newId = () => globalThis.crypto?.randomUUID?.() ?? `reference-${Date.now()}-${++counter}`;

export function checkEmitter(emitter) {
  if (emitter == null) return null;
  if (typeof emitter === "function") return emitter;
  if (typeof emitter.getWriter === "function") return emitter;
  if (typeof emitter.emit === "function") return emitter;
  throw citeflowError(
    "INVALID_OPTION",
    `eventEmitter must be a function, a WritableStream or an object with emit(); got ${describe(emitter)}`,
  );
}

function referenceEvent(id, value, valueType) {
  return { id, type: "reference", value, valueType, level: "INFO", timestamp: new Date().toISOString(), metadata: {} };
}

/** The formatter's events: one for a string, one per chunk (sharing an id) for chunks. */
export async function emitReferences(emitter, result) {
  if (emitter === null) return;
  const id = newId();
  const events = typeof result === "string"
    ? (result === "" ? [] : [referenceEvent(id, result, "text")])
    : result.map((chunk) => referenceEvent(id, JSON.parse(JSON.stringify(chunk)), "json"));
  if (events.length === 0) return;
  if (typeof emitter.getWriter === "function") {
    const writer = emitter.getWriter();
    try {
      for (const e of events) await writer.write(e);
    } finally {
      writer.releaseLock();
    }
    return;
  }
  for (const e of events) await (typeof emitter === "function" ? emitter(e) : emitter.emit(e));
}
