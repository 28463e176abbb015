import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A lock left without its holder's pid for this long was abandoned between taking and writing it. */
const PIDLESS_STALE_MS = 10_000;

/**
 * Runs `work` while holding the lock directory `lock`, across processes: Hardhat 3 writes its build
 * cache through a temporary file renamed into place, and two builds at once (two `npm start`s, a
 * test's deployment beside another's) fail on each other's rename. A directory is created or not,
 * atomically; the holder's pid inside it lets a later process take over from one that died.
 */
export async function withLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock, { recursive: false });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (abandoned(lock)) rmSync(lock, { recursive: true, force: true });
    else await sleep(100);
  }
  writeFileSync(join(lock, "pid"), String(process.pid));
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function abandoned(lock: string): boolean {
  try {
    const pid = Number(readFileSync(join(lock, "pid"), "utf8"));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return true;
    if (code === "ENOENT") return olderThan(lock, PIDLESS_STALE_MS);
    return false;
  }
}

function olderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}
