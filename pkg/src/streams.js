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
