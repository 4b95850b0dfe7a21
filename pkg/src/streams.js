// Any push/finish machine as a web TransformStream.

/** A TransformStream feeding each chunk to `machine.push` and ending with `machine.finish`. */
export function transformStreamOf(machine) {
  return new TransformStream({
    transform(chunk, controller) {
      for (const out of machine.push(chunk)) controller.enqueue(out);
    },
    flush(controller) {
      for (const out of machine.finish()) controller.enqueue(out);
    },
  });
}

/**
 * `source` as something `for await` can read: a ReadableStream is read through its reader
 * (WebKit has no async iteration of ReadableStream), anything else is returned as it is.
 * Leaving the loop early cancels the stream, as async iteration does.
 */
export function iterableOf(source) {
  return typeof source?.getReader === "function" ? readerItems(source) : source;
}

async function* readerItems(stream) {
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read().catch((e) => {
        ended = true;
        throw e;
      });
      if (done) {
        ended = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
