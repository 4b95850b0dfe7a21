// Any push/finish machine as a web TransformStream.

/**
 * A machine's way to let its wasm memory go at once when its stream is given up on (see
 * `Engine.release`); machines written in JS have none.
 */
export const RELEASE_STREAM = Symbol("citeflow.releaseStream");

function release(machine) {
  try {
    machine[RELEASE_STREAM]?.();
  } catch {
    // The stream's own error (or its cancellation) is what its reader sees.
  }
}

/**
 * A TransformStream feeding each chunk to `machine.push` and ending with `machine.finish`. A
 * stream that fails (a push or the finish throws) or is cancelled (its reader cancels, its
 * writer aborts: a fetch body broken off, a stopped answer) never pushes into its machine
 * again, so the machine lets its memory go then and there.
 */
export function transformStreamOf(machine) {
  return new TransformStream({
    transform(chunk, controller) {
      let events;
      try {
        events = machine.push(chunk);
      } catch (error) {
        release(machine);
        throw error;
      }
      for (const out of events) controller.enqueue(out);
    },
    flush(controller) {
      let events;
      try {
        events = machine.finish();
      } catch (error) {
        release(machine);
        throw error;
      }
      for (const out of events) controller.enqueue(out);
    },
    cancel() {
      release(machine);
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
