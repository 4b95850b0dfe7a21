// Function-table entries no call can reach, pointed at one `unreachable` function so that
// wasm-opt drops the functions they held. Run on wasm-bindgen's output, before wasm-opt.
//
// Why they are there: for every import it declares, js-sys exports a describe function that
// names the closure types the import takes (`Array.forEach`'s callback, `Promise`'s executor,
// the typed arrays' `forEach`, ...), each by its `invoke` shim's table index. The wasm-bindgen
// CLI runs and removes those describe functions, and the imports nobody calls, but the table
// entries the compiler made for the shims stay, and wasm-opt keeps every entry of a table that
// `call_indirect` uses. Likewise js-sys's JSPI task waker: its vtable's entries stay though
// no future is ever polled. In the lean streaming module that was 47 entries and 2.2 KB of code
// (0.75 KB gzip).
//
// When it is safe, checked here (else the module is left as it is):
// - the funcref table is not exported: JS calls no entry (wasm-bindgen exports it only for
//   closures the glue calls back, which a module without `Closure`s does not);
// - a closure's `invoke` shim gets its index only from a describe function, all gone by now;
// - the waker's entries are replaced only in a module with no other futures code: a waker is
//   woken only by polling a future, and nothing here polls one.

// Names as the name section has them: demangled, with the crate's hash in brackets (v0
// mangling, the lean module's own std build) or a `::h<hash>` suffix (legacy mangling).
const CLOSURE_INVOKE = /^wasm_bindgen(\[[0-9a-f]+\])?::convert::closures::.*::invoke(::<|::h[0-9a-f]{16}$)/;
const WAKER =
  /^js_sys(\[[0-9a-f]+\])?::futures::jspi::task_waker::raw_(clone|wake|wake_by_ref|drop)(::h[0-9a-f]{16})?$/;
const FUTURES_CODE = /futures|Future|::poll/;
// The waker's own code: the task it holds, and the poll it schedules when woken.
const WAKER_OWN = /jspi::(task_waker::raw_|SpawnedTask|__wbindgen_jspi_spawn_poll)/;

/** A reader of the module's bytes. */
class Bytes {
  constructor(bytes, at = 0) {
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
  name() {
    const n = this.u32();
    const s = Buffer.from(this.b.subarray(this.p, this.p + n)).toString("utf8");
    this.p += n;
    return s;
  }
}

function leb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return Buffer.from(out);
}

function sections(bytes) {
  const r = new Bytes(bytes, 8);
  const list = [];
  while (r.p < bytes.length) {
    const id = bytes[r.p++];
    const size = r.u32();
    list.push({ id, start: r.p, end: r.p + size });
    r.p += size;
  }
  return list;
}

/** Function names (name section), the number of imported functions and of defined ones. */
function functions(bytes, list) {
  const names = new Map();
  let imported = 0, defined = 0, tableExported = false;
  for (const s of list) {
    const r = new Bytes(bytes, s.start);
    if (s.id === 0 && r.name() === "name") {
      while (r.p < s.end) {
        const sub = bytes[r.p++], size = r.u32(), end = r.p + size;
        if (sub === 1) {
          for (let n = r.u32(); n > 0; n--) names.set(r.u32(), r.name());
        }
        r.p = end;
      }
    } else if (s.id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = bytes[r.p++];
        if (kind === 0) {
          r.u32();
          imported++;
        } else if (kind === 1) {
          r.p++;
          if (bytes[r.p++] & 1) r.u32();
          r.u32();
        } else if (kind === 2) {
          if (bytes[r.p++] & 1) r.u32();
          r.u32();
        } else r.p += 2;
      }
    } else if (s.id === 3) {
      defined = r.u32();
    } else if (s.id === 7) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        const kind = bytes[r.p++];
        r.u32();
        // The externref table wasm-bindgen keeps its JS values in is exported by name; a
        // funcref table would be exported under another.
        if (kind === 1 && name !== "__wbindgen_externrefs") tableExported = true;
      }
    }
  }
  return { names, imported, defined, tableExported };
}

/**
 * `bytes` (a wasm module with its name section) with the uncallable table entries pointed at
 * a new function whose body is `unreachable`; the count replaced. Unchanged (0) when a check
 * above fails or there is nothing to replace.
 */
export function withoutUncallableEntries(bytes) {
  const list = sections(bytes);
  const { names, imported, defined, tableExported } = functions(bytes, list);
  if (tableExported || names.size === 0) return { bytes, replaced: 0 };
  const futures = [...names.values()].filter((n) => FUTURES_CODE.test(n));
  const wakerAlone = futures.every((n) => WAKER_OWN.test(n));
  const uncallable = (name) => CLOSURE_INVOKE.test(name) || (wakerAlone && WAKER.test(name));
  const trap = imported + defined;
  let replaced = 0, types = 0;
  const out = [bytes.subarray(0, 8)];
  for (const s of list) {
    let body = bytes.subarray(s.start, s.end);
    const r = new Bytes(bytes, s.start);
    if (s.id === 1) {
      // A new type `[] -> []` for the new function, last.
      types = r.u32();
      body = Buffer.concat([leb(types + 1), bytes.subarray(r.p, s.end), Buffer.from([0x60, 0, 0])]);
    } else if (s.id === 3) {
      const n = r.u32();
      body = Buffer.concat([leb(n + 1), bytes.subarray(r.p, s.end), leb(types)]);
    } else if (s.id === 10) {
      const n = r.u32();
      // Its body: no locals, `unreachable`, `end`.
      body = Buffer.concat([leb(n + 1), bytes.subarray(r.p, s.end), Buffer.from([3, 0, 0x00, 0x0b])]);
    } else if (s.id === 9) {
      const parts = [];
      const segments = r.u32();
      parts.push(leb(segments));
      for (let i = 0; i < segments; i++) {
        const flags = r.u32();
        // Active segments of function indices into table 0 (what rustc and wasm-bindgen write).
        if (flags !== 0) return { bytes, replaced: 0 };
        const exprStart = r.p;
        while (bytes[r.p] !== 0x0b) r.p++;
        r.p++;
        parts.push(leb(flags), bytes.subarray(exprStart, r.p));
        const n = r.u32();
        parts.push(leb(n));
        for (let j = 0; j < n; j++) {
          let f = r.u32();
          if (uncallable(names.get(f) ?? "")) {
            f = trap;
            replaced++;
          }
          parts.push(leb(f));
        }
      }
      body = Buffer.concat(parts);
    }
    out.push(Buffer.from([s.id]), leb(body.length), body);
  }
  if (replaced === 0) return { bytes, replaced };
  return { bytes: Buffer.concat(out), replaced };
}
