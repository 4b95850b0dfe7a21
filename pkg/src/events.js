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

export function toEvent(input) {
  return typeof input === "string" ? { id: null, type: RESPONSE, value: input, valueType: "text" } : checkEvent(input);
}
