/**
 * Preloaded (`node -r`) into every Node process a benchmark or soak run starts. Its stdin is a pipe
 * from the run: however the run ends — SIGKILL included, which runs no cleanup — the pipe closes,
 * and this process stops instead of lingering (a Hardhat node holding its port, a worker polling a
 * dropped database). SIGTERM first, so graceful shutdown hooks run; a hard exit if they hang.
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
