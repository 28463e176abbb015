import { describe, expect, it } from "vitest";

import { receiverOf } from "../../ledger/callback-receiver";
import { ReceiverSlots } from "./receiver-slots";

const SLOW = "https://slow.example.com";
const FAST = "https://fast.example.com";

describe("receiverOf", () => {
  it("is the scheme and authority in lower case, without path, query or fragment", () => {
    expect(receiverOf("HTTPS://Hooks.Example.COM:8443/Path/To?token=Secret#x")).toBe("https://hooks.example.com:8443");
    expect(receiverOf("https://user:pw@hooks.example.com/a")).toBe("https://user:pw@hooks.example.com");
  });

  it("is the whole value, lower-cased, for what is not a URL", () => {
    expect(receiverOf("Not A URL")).toBe("not a url");
  });
});

describe("ReceiverSlots", () => {
  it("gives one receiver at most half of the slots", () => {
    const slots = new ReceiverSlots(10, 1);
    expect(slots.perReceiver).toBe(5);
    expect(slots.shares()).toEqual({ full: [], inFlight: [], idleRoom: 5 });
    expect(new ReceiverSlots(1, 1).perReceiver).toBe(1);
  });

  it("tells each receiver in flight its room, and leaves out those with less room than a claim batch", () => {
    const slots = new ReceiverSlots(10, 2);
    for (let i = 0; i < 4; i++) slots.take(SLOW);
    slots.take(FAST);
    expect(slots.shares()).toEqual({
      full: [SLOW],
      inFlight: [
        { receiver: SLOW, room: 1 },
        { receiver: FAST, room: 4 },
      ],
      idleRoom: 5,
    });
  });

  it("forgets a receiver with nothing in flight", () => {
    const slots = new ReceiverSlots(10, 1);
    slots.take(FAST);
    slots.release(FAST);
    expect(slots.shares()).toEqual({ full: [], inFlight: [], idleRoom: 5 });
  });

  it("says when a release gives a receiver the last claim left out a claim batch of room again, once", () => {
    const slots = new ReceiverSlots(10, 2);
    for (let i = 0; i < 5; i++) slots.take(SLOW);
    slots.take(FAST);
    slots.rememberLeftOut();
    expect(slots.release(FAST)).toBe(false);
    expect(slots.release(SLOW)).toBe(false);
    expect(slots.release(SLOW)).toBe(true);
    expect(slots.release(SLOW)).toBe(false);
  });

  it("does not call a receiver back that the last claim did not leave out", () => {
    const slots = new ReceiverSlots(10, 2);
    slots.rememberLeftOut();
    for (let i = 0; i < 5; i++) slots.take(SLOW);
    slots.release(SLOW);
    expect(slots.release(SLOW)).toBe(false);
  });
});
