// Exports that return through a stack slot instead of as several wasm values (scripts/build.mjs).
//
// When the compiler's `target_features` list (a custom section of the wasm file, which
// wasm-bindgen reads to choose how its exports look) has `multivalue`, wasm-bindgen turns every
// export that returns through a stack slot (a Result, a String, a Vec) into one returning several
// values. Node 20's V8 has no generic JS-to-wasm wrapper for a signature with several results,
// so it compiles one wrapper per such signature while compiling the module, before any call: in
// the streaming module that was ~1.3 ms of its ~3.5 ms compile (10 such signatures). Without
// `multivalue` in the list the exports return through the slot, which wasm-bindgen's glue reads,
// and the generic wrapper serves them. Rust still compiles with multivalue; only the export
// shape changes. wasm-bindgen's glue takes the slot from the shadow stack, a fresh one per call
// (kept: the export receives it as its return pointer, which the compiler may treat as memory
// no other code writes while the export runs, so a call made inside the export, through user
// code such as an option's getter, must not share it), and reads it through a fresh check of
// wasm memory per word: `patchReturnSlots` reads it through one view per call and checks that
// view without the `memory.buffer` getter on engines lacking `ArrayBuffer.prototype.detached`.

function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 127) * 2 ** shift;
    shift += 7;
  } while (byte & 128);
  return [value, at];
}

function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value) byte |= 128;
    out.push(byte);
  } while (value);
  return out;
}

/** `bytes` (a wasm module) with the named features left out of its `target_features` list. */
export function withoutTargetFeatures(bytes, names) {
  const parts = [bytes.subarray(0, 8)];
  let removed = 0;
  for (let at = 8; at < bytes.length;) {
    const [size, body] = readLeb(bytes, at + 1);
    const end = body + size;
    const [nameLength, nameAt] = readLeb(bytes, body);
    const name = bytes[at] === 0 ? Buffer.from(bytes.subarray(nameAt, nameAt + nameLength)).toString() : "";
    if (name !== "target_features") {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    let [count, entry] = readLeb(bytes, nameAt + nameLength);
    const kept = [];
    for (; count > 0; count--) {
      const [length, featureAt] = readLeb(bytes, entry + 1);
      const next = featureAt + length;
      const feature = Buffer.from(bytes.subarray(featureAt, next)).toString();
      if (names.includes(feature)) removed++;
      else kept.push(bytes.subarray(entry, next));
      entry = next;
    }
    const section = Buffer.concat([
      Buffer.from(leb(nameLength)),
      Buffer.from(name),
      Buffer.from(leb(kept.length)),
      ...kept,
    ]);
    parts.push(Buffer.from([0, ...leb(section.length)]), section);
    at = end;
  }
  if (removed !== names.length) {
    throw new Error(`target_features: expected to remove ${names.join(", ")}, removed ${removed}`);
  }
  return Buffer.concat(parts);
}

function replaceAll(text, pattern, replacement, what) {
  let count = 0;
  const out = text.replace(pattern, (...m) => {
    count++;
    return typeof replacement === "function" ? replacement(...m) : replacement;
  });
  if (count === 0) throw new Error(`return slots: no ${what} in the glue (did the wasm-bindgen glue change?)`);
  return out;
}

function count(text, what) {
  return text.split(what).length - 1;
}

/** wasm-bindgen's glue with each call's return slot read through one DataView. */
export function patchReturnSlots(glue) {
  const take = "const retptr = wasm.__wbindgen_add_to_stack_pointer(-16) >>> 0;";
  if (count(glue, take) === 0) return glue;
  // Each call reads its slot's words as `var rK = getDataViewMemory0().getInt32(retptr + 4 * K, true);`
  // from K = 0 up: the view is taken once, at word 0.
  let out = replaceAll(
    glue,
    /var r(\d) = getDataViewMemory0\(\)\.(get\w+)\(retptr \+ (\d) \* (\d), true\);/g,
    (_, k, get, size, i) =>
      `${
        k === "0" ? "const slot = getDataViewMemory0(); " : ""
      }var r${k} = slot.${get}(retptr + ${size} * ${i}, true);`,
    "stack-slot reads",
  );
  // A view of wasm memory is stale once the memory grew (its buffer is then detached, of length
  // 0) or the instance was replaced (the glue then drops its cached views); `memory.buffer` per
  // check costs more than the rest of a short call.
  out = replaceAll(
    out,
    "if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {",
    "if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.byteLength === 0) {",
    "DataView cache check",
  );
  return out;
}
