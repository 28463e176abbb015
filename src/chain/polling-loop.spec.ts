import { describe, expect, it } from "vitest";

import { PollingLoop } from "./polling-loop";

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("PollingLoop", () => {
  it("runs its pass again after each one, goes on after a failure, and stops", async () => {
    let passes = 0;
    const errors: string[] = [];
    const sut = new PollingLoop(
      async () => {
        passes += 1;
        if (passes === 2) throw new Error("node away");
      },
      () => 1,
      (error) => errors.push(error.message),
    );
    sut.start();
    await until(() => passes >= 4);
    sut.stop();
    const stoppedAt = passes;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(errors).toEqual(["node away"]);
    expect(passes).toBe(stoppedAt);
    expect(sut.isStopped).toBe(true);
  });

  it("never overlaps two passes", async () => {
    let running = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const sut = new PollingLoop(
      async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => (release = resolve));
        running -= 1;
      },
      () => 1,
      () => undefined,
    );
    const first = sut.runOnce();
    await sut.runOnce();
    release();
    await first;
    expect(most).toBe(1);
  });
});
