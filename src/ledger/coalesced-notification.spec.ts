import { describe, expect, it } from "vitest";

import { CoalescedNotification } from "./coalesced-notification";

/** A send whose runs are settled by the test, recording when each started. */
function controlledSend() {
  const runs: { settle: (error?: Error) => void; startedAfter: number }[] = [];
  let calls = 0;
  const send = () =>
    new Promise<void>((resolve, reject) => {
      runs.push({ settle: (error) => (error ? reject(error) : resolve()), startedAfter: calls });
    });
  return { send, runs, called: () => ++calls };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("CoalescedNotification", () => {
  it("sends at once when nothing runs, and once more for all the callers that came while it ran", async () => {
    const { send, runs, called } = controlledSend();
    const notification = new CoalescedNotification(send);
    const settled: number[] = [];
    const first = notification.notify().then(() => settled.push(called()));
    const waiting = [1, 2, 3].map(() => notification.notify().then(() => settled.push(0)));
    expect(runs).toHaveLength(1);
    runs[0].settle();
    await first;
    await flush();
    // The three waited for a run that started after they called: the second.
    expect(runs).toHaveLength(2);
    expect(settled).toEqual([1]);
    runs[1].settle();
    await Promise.all(waiting);
    expect(settled).toHaveLength(4);
    // Nothing runs now: the next caller sends at once.
    void notification.notify();
    expect(runs).toHaveLength(3);
  });

  it("still sends for the waiting callers when the running send fails, and gives each caller its own run's outcome", async () => {
    const { send, runs } = controlledSend();
    const notification = new CoalescedNotification(send);
    const first = notification.notify();
    const second = notification.notify();
    runs[0].settle(new Error("Redis unreachable"));
    await expect(first).rejects.toThrow("Redis unreachable");
    await flush();
    expect(runs).toHaveLength(2);
    runs[1].settle();
    await expect(second).resolves.toBeUndefined();
  });

  it("a caller arriving while the follow-up runs gets a run of its own after it", async () => {
    const { send, runs } = controlledSend();
    const notification = new CoalescedNotification(send);
    void notification.notify();
    const second = notification.notify();
    runs[0].settle();
    await flush();
    expect(runs).toHaveLength(2);
    let thirdDone = false;
    const third = notification.notify().then(() => (thirdDone = true));
    runs[1].settle();
    await second;
    await flush();
    expect(thirdDone).toBe(false);
    expect(runs).toHaveLength(3);
    runs[2].settle();
    await third;
  });
});
