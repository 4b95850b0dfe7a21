// Child processes that must not outlive the test: each runs in its own process group, which
// is killed when stopped and, failing that, when this process exits for any reason.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

const live = new Set();
process.on("exit", () => live.forEach(killGroup));

/** Kills `child` and everything in its process group (it must lead one: spawned detached). */
export function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
  live.delete(child);
}

/** Spawns `command` in a new process group; `stop()` kills the group and waits for the exit. */
export function spawnGroup(command, args, options = {}) {
  const child = spawn(command, args, { stdio: "ignore", ...options, detached: true });
  live.add(child);
  const exited = child.exitCode === null ? once(child, "exit").catch(() => {}) : Promise.resolve();
  const started = new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (e) => reject(new Error(`${command}: ${e.message}`)));
  });
  return { child, started, stop: () => (killGroup(child), exited) };
}

/** Rejects with `what timed out` after `ms`, else settles as `promise` does. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A TCP port on 127.0.0.1 that nothing listens on (the system's pick). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
