/**
 * Preloaded (`node -r`, see NODE_LIFELINE_ARGS in owned-process.ts) into every Node process the stack
 * starts: the api and worker processes of `npm start`, of the benchmarks and of the tests, and the
 * Hardhat nodes. Their stdin is a pipe from their parent: however it ends —
 * SIGKILL included, which runs no cleanup — the pipe closes and the process shuts down (SIGTERM to
 * itself, so shutdown hooks run; a hard exit after GRACE_MS if they hang) instead of lingering with
 * its port and its database connections.
 */
const GRACE_MS = 10_000;

if (!process.stdin.isTTY) {
  const stop = () => {
    setTimeout(() => process.exit(1), GRACE_MS).unref();
    process.kill(process.pid, "SIGTERM");
  };
  process.stdin.once("end", stop);
  process.stdin.once("error", stop);
  process.stdin.resume();
}
