// Checks what wasm-opt's `--low-memory-unused` assumes: that the program never accesses the
// first 1,024 bytes of its memory. Then binaryen may fold a small constant added to an address
// into the access's offset (`i32.load offset=8 p` for `i32.load (p + 8)`), which differs only
// where the unfolded sum wraps around 2^32 into that first KB. (Measured: the lean streaming
// module -414 B gzip, the others -0.2 to -0.6 KB.)
//
// rustc lays a wasm32 module out stack first: the shadow stack grows down from its initial
// pointer (1 MiB) towards 0 and the data sits above it. So nothing the program places is in
// the first KB, checked here: every active data segment and the stack pointer's initial
// value at or above 1,024. The stack reaches it only when it is within 1 KB of overflowing,
// where the only difference the folding can make is a trap (which the instance guard turns
// into an error and a fresh instance) instead of an access.

const LOW = 1024;

class Reader {
  constructor(bytes, at) {
    this.b = bytes;
    this.p = at;
  }
  u32() {
    let result = 0, shift = 0, byte;
    do {
      byte = this.b[this.p++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  /** An `i32.const N; end` expression's N (signed LEB128), or null for any other expression. */
  constExpr() {
    if (this.b[this.p] !== 0x41) return null;
    this.p++;
    let result = 0, shift = 0, byte;
    do {
      byte = this.b[this.p++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 32 && byte & 0x40) result |= -1 << shift;
    if (this.b[this.p++] !== 0x0b) return null;
    return result >>> 0;
  }
}

/** Why `bytes` (a wasm module) may not assume its low memory unused; null when it may. */
export function lowMemoryInUse(bytes) {
  const r = new Reader(bytes, 8);
  let stackPointer = null;
  while (r.p < bytes.length) {
    const id = bytes[r.p++];
    const end = r.u32() + r.p;
    if (id === 6) {
      // The first mutable i32 global is rustc's (and wasm-bindgen's) stack pointer.
      for (let n = r.u32(); n > 0 && stackPointer === null; n--) {
        const type = bytes[r.p++], mutable = bytes[r.p++];
        const init = r.constExpr();
        if (init === null) break;
        if (type === 0x7f && mutable === 1) stackPointer = init;
      }
    } else if (id === 11) {
      for (let n = r.u32(); n > 0; n--) {
        const flags = r.u32();
        if (flags === 1) {
          // Passive: copied where the program says (its accesses then).
          const size = r.u32();
          r.p += size;
          continue;
        }
        if (flags === 2) r.u32();
        const at = r.constExpr();
        if (at === null) return "a data segment at an address that is not a constant";
        if (at < LOW) return `a data segment at ${at}`;
        const size = r.u32();
        r.p += size;
      }
    }
    r.p = end;
  }
  if (stackPointer === null) return "no stack pointer found";
  if (stackPointer < LOW) return `the stack starting at ${stackPointer}`;
  return null;
}
