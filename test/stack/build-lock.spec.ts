import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { withLock } from "../../scripts/stack/build-lock";

describe("withLock (one Hardhat build at a time)", () => {
  let dir: string;
  let lock: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "build-lock-"));
    lock = join(dir, "build.lock");
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs one holder's work at a time, and frees the lock after each, failures included", async () => {
    const events: string[] = [];
    const work =
      (name: string, fail = false) =>
      async () => {
        events.push(`${name} start`);
        await sleep(50);
        events.push(`${name} end`);
        if (fail) throw new Error(`${name} failed`);
      };
    const results = await Promise.allSettled([withLock(lock, work("a", true)), withLock(lock, work("b")), withLock(lock, work("c"))]);

    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    for (let i = 0; i < events.length; i += 2) expect(events[i + 1]).toBe(events[i].replace("start", "end"));
    await withLock(lock, async () => undefined);
  });

  it("takes over a lock whose holder is gone", async () => {
    mkdirSync(lock);
    // A pid no process has: the holder was killed while it held the lock.
    writeFileSync(join(lock, "pid"), "2147483646");
    await expect(withLock(lock, async () => "ran")).resolves.toBe("ran");
  });
});
