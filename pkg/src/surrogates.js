// A string chunk can end between the two halves of a surrogate pair (an emoji cut by the
// network or by whoever split the text): the first half waits for the next chunk, so that
// what is matched or encoded is always a whole character.

export const isHighSurrogate = (unit) => unit >= 0xd800 && unit <= 0xdbff;

/** `held + chunk`, split into the text that can go on now and a trailing first half to hold ("" if none). */
export function holdHalfPair(held, chunk) {
  const text = held === "" ? chunk : held + chunk;
  return isHighSurrogate(text.charCodeAt(text.length - 1)) ? [text.slice(0, -1), text.slice(-1)] : [text, ""];
}
