// Reads a ReadableStream to its end through its reader, pushing each item into `into`
// (returned). The cases run in WebKit too, which cannot `for await` over a ReadableStream; on
// an error, `into` keeps what was read before it.
export async function drain(stream, into = []) {
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return into;
    into.push(value);
  }
}
