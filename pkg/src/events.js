// What `push` accepts: a bare string (a `response` chunk) or an event object.
import { citeflowError, describe, isArray, prop } from "./errors.js";

export const RESPONSE = "response";

export function checkEvent(input) {
  if (input === null || typeof input !== "object" || isArray(input)) {
    throw citeflowError(
      "INVALID_CHUNK",
      `push() takes a string chunk or an event object {type, value}; got ${describe(input)}`,
    );
  }
  const type = prop(input, "type", "INVALID_EVENT", "the event");
  if (type !== undefined && (typeof type !== "string" || type.trim() === "")) {
    throw citeflowError("INVALID_EVENT", `an event's \`type\` must be a non-empty string; got ${describe(type)}`);
  }
  return input;
}

export function eventType(event) {
  return prop(event, "type", "INVALID_EVENT", "the event") ?? RESPONSE;
}

/** The value of an event that passed `checkEvent`. */
export function eventValue(event) {
  return prop(event, "value", "INVALID_EVENT", "the event");
}

/** The event of a bare string pushed: answer text with no id. */
export const responseText = (value) => ({ id: null, type: RESPONSE, value, valueType: "text" });

/** A `citation` event: what the core's step and the citation fast path both return. */
export const citationEvent = (sourceId, marker, start, end, valid) => ({
  id: null,
  type: "citation",
  value: { sourceId, marker, span: [start, end], valid },
  valueType: "json",
});

export function toEvent(input) {
  return typeof input === "string" ? responseText(input) : checkEvent(input);
}
