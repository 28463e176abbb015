import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { encodedItemBytes } from "../../../registry";
import { planBatch as sut, TRANSACTION_OVERHEAD_BYTES, type UnencodableItem } from "./batch-plan";
import { BATCH_BASE_GAS } from "./item-gas";
import { EVENT_SWITCH_GAS, SIGNAL_GAS } from "./metadata-signals";
import type { PendingAction } from "./pending-action";

const scan = (seq: number): PendingAction => ({
  id: `a${seq}`,
  seq: BigInt(seq),
  organizationId: "org",
  acceptedAt: new Date(),
  item: { action: "checkedIn", tokenId: 1n, orderTime: 1n },
});
const sale = (seq: number, tokenId: bigint): PendingAction => ({
  id: `s${seq}`,
  seq: BigInt(seq),
  organizationId: "org",
  acceptedAt: new Date(),
  item: { action: "sold", tokenId, ticketHash: "0x" + "00".repeat(32), price: "1", orderTime: 1n },
});
const claim = (seq: number): PendingAction => ({
  id: `c${seq}`,
  seq: BigInt(seq),
  organizationId: "org",
  acceptedAt: new Date(),
  item: { action: "claimed", tokenId: 1n, to: "0x52908400098527886E0F7030069857D2E4169EE7" },
});

/** A byte limit no test of the gas budget reaches. */
const gasOnly = (gas: number) => ({ gas, bytes: 1_000_000 });

/** A newEvent whose four texts are 255 four-byte characters each: the largest item there is. */
const largestEvent = (seq: number): PendingAction => ({
  id: `e${seq}`,
  seq: BigInt(seq),
  organizationId: "org",
  acceptedAt: new Date(),
  item: {
    action: "registerEvent",
    eventIndex: BigInt(seq),
    eventKey: "0x" + "11".repeat(32),
    ticketeer: "0x" + "22".repeat(32),
    details: {
      name: "𝄞".repeat(255),
      currency: "EUR",
      shopUrl: "𝄞".repeat(255),
      imageUrl: "𝄞".repeat(255),
      latitude: 0,
      longitude: 0,
      startTime: 0n,
      endTime: 0n,
      organizer: "𝄞".repeat(255),
      metadataHash: ZeroHash,
    },
  },
});

describe("planBatch", () => {
  it("plans each action's gas, which with the transaction's own make the gas limit, a sale first in its flag slot paying the slot", () => {
    const plan = sut([sale(1, 1n), sale(2, 2n), scan(3), claim(4)], gasOnly(30_000_000));
    expect(plan.plannedGas).toHaveLength(4);
    expect(plan.plannedGas.reduce((total, gas) => total + gas, BATCH_BASE_GAS)).toBe(plan.gasLimit);
    expect(plan.plannedGas[0]).toBeGreaterThan(plan.plannedGas[1]);
  });

  it("leaves out an item the codec refuses, in the middle of the batch, and plans the rest in order from the bytes it encoded once", () => {
    // A token id wider than 16 bytes: the codec refuses it.
    const refused = sale(2, 1n << 130n);
    const waiting = [sale(1, 1n), refused, sale(3, 3n), sale(4, 4n)];
    const unencodable: UnencodableItem[] = [];

    const plan = sut(waiting, gasOnly(1_000_000), unencodable);

    expect(plan.actions.map((a) => a.id)).toEqual(["s1", "s3", "s4"]);
    expect(plan.full).toBe(false);
    expect(unencodable.map(({ action }) => action.id)).toEqual(["s2"]);
    expect(unencodable[0].reason).toMatch(/does not fit in 16 bytes/);
    expect(plan.actions.every((action) => action.encoded?.length === 2 + 2 * encodedItemBytes(action.item))).toBe(true);
  });

  it("encodes only the actions it reaches: those after a full batch wait unencoded for a later read", () => {
    const waiting = [sale(1, 1n), sale(2, 2n), sale(3, 3n)];
    const oneSale = sut([sale(9, 9n)], gasOnly(10_000_000)).gasLimit;

    const plan = sut(waiting, gasOnly(oneSale));

    expect(plan.actions.map((a) => a.id)).toEqual(["s1"]);
    expect(plan.full).toBe(true);
    expect(waiting[2].encoded).toBeUndefined();
  });

  it("takes everything that fits, with the base cost in the gas limit", () => {
    const plan = sut([scan(1), scan(2)], gasOnly(1_000_000));
    expect(plan.actions.map((a) => a.id)).toEqual(["a1", "a2"]);
    // Two check-ins of one ticket: the cold rewrite of its flag slot and the read of its event's state are paid once.
    expect(plan.gasLimit).toBe(BATCH_BASE_GAS + 2 * 3_000 + 5_000 + 2_100);
    expect(plan.full).toBe(false);
  });

  it("stops at the first item over the budget, keeping acceptance order", () => {
    const plan = sut([scan(1), claim(2), scan(3)], gasOnly(BATCH_BASE_GAS + 3_000 + 5_000 + 2_100 + 1_000));
    expect(plan.actions.map((a) => a.id)).toEqual(["a1"]);
    expect(plan.full).toBe(true);
  });

  it("fills a 15M-gas budget with about 1,500 sales", () => {
    const sales = Array.from({ length: 3000 }, (_, i) => sale(i, BigInt(i + 1)));
    const plan = sut(sales, gasOnly(15_000_000));
    // 1,514 consecutive sales of one event: 24 flag slots written fresh (64 tickets each) and one sale counter.
    expect(plan.actions.length).toBe(1_514);
    expect(plan.gasLimit).toBe(BATCH_BASE_GAS + 1_514 * 9_500 + 24 * 22_100 + 24_200);
    expect(plan.full).toBe(true);
  });

  it("charges the storage a sale may be the first to write once per batch: its flag slot and its event's counter", () => {
    const event = (index: bigint, serial: bigint) => (index << 64n) | serial;
    const first = sut([sale(1, event(1n, 1n))], gasOnly(1_000_000)).gasLimit;
    expect(first).toBe(BATCH_BASE_GAS + 9_500 + 22_100 + 24_200);
    // A neighbour shares both; a ticket 64 serials on needs a flag slot of its own; another event needs both again.
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(1n, 2n))], gasOnly(1_000_000)).gasLimit).toBe(first + 9_500);
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(1n, 65n))], gasOnly(1_000_000)).gasLimit).toBe(first + 9_500 + 22_100);
    // Another event also needs a signal of its own, and the move to it.
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(2n, 1n))], gasOnly(1_000_000)).gasLimit).toBe(2 * first - BATCH_BASE_GAS + EVENT_SWITCH_GAS + SIGNAL_GAS);
  });

  it("prices items alternating between events as the registry signals them: one signal per event, a switch per move", () => {
    const checkInOf = (seq: number, eventIndex: bigint): PendingAction => ({
      ...scan(seq),
      item: { action: "checkedIn", tokenId: (eventIndex << 64n) | 1n, orderTime: 1n },
    });
    // Two events in turn: a signal for the second, then a switch at every move.
    const alternating = sut(
      [1n, 2n, 1n, 2n].map((eventIndex, i) => checkInOf(i, eventIndex)),
      gasOnly(1_000_000),
    );
    expect(alternating.gasLimit).toBe(BATCH_BASE_GAS + 4 * 3_000 + 2 * (5_000 + 2_100) + SIGNAL_GAS + 3 * EVENT_SWITCH_GAS);
    // Nine events in turn, twice: the registry keeps eight apart, so the second round signals each again.
    const events = [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n];
    const roundRobin = sut(
      [...events, ...events].map((eventIndex, i) => checkInOf(i, eventIndex)),
      gasOnly(1_000_000),
    );
    expect(roundRobin.gasLimit).toBe(BATCH_BASE_GAS + 18 * 3_000 + 9 * (5_000 + 2_100) + 17 * EVENT_SWITCH_GAS + 17 * SIGNAL_GAS);
  });

  it("charges a check-in's flag slot unless an earlier item of the batch wrote it", () => {
    const scanOf = (seq: number, tokenId: bigint): PendingAction => ({ ...scan(seq), item: { action: "checkedIn", tokenId, orderTime: 1n } });
    expect(sut([scanOf(1, 1n), scanOf(2, 64n)], gasOnly(1_000_000)).gasLimit).toBe(BATCH_BASE_GAS + 2 * (3_000 + 5_000) + 2_100);
    expect(sut([sale(1, 2n), scanOf(2, 2n)], gasOnly(1_000_000)).gasLimit).toBe(BATCH_BASE_GAS + 9_500 + 22_100 + 24_200 + 3_000);
  });

  it("charges the read of whether an event is cancelled once per event, and nothing when a sale wrote its slot", () => {
    const claimOf = (seq: number, eventIndex: bigint): PendingAction => ({
      ...claim(seq),
      item: { ...claim(seq).item, tokenId: (eventIndex << 64n) | 1n } as PendingAction["item"],
    });
    const oneClaim = sut([claimOf(1, 1n)], gasOnly(1_000_000)).gasLimit;
    expect(oneClaim).toBe(BATCH_BASE_GAS + 62_000 + 2_100);
    expect(sut([claimOf(1, 1n), claimOf(2, 1n)], gasOnly(1_000_000)).gasLimit).toBe(oneClaim + 62_000);
    expect(sut([sale(1, (1n << 64n) | 2n), claimOf(2, 1n)], gasOnly(1_000_000)).gasLimit).toBe(BATCH_BASE_GAS + 9_500 + 22_100 + 24_200 + 62_000);
  });

  it("prices an event's cancellation as one item, whatever its tickets", () => {
    const cancellation: PendingAction = { ...scan(1), item: { action: "cancelEvent", eventIndex: 1n } };
    expect(sut([cancellation], gasOnly(1_000_000)).gasLimit).toBe(BATCH_BASE_GAS + 20_000);
  });

  it("stops where the signed transaction would pass the byte limit, however much gas is left", () => {
    const events = Array.from({ length: 100 }, (_, i) => largestEvent(i + 1));
    const itemBytes = encodedItemBytes(events[0].item);
    const plan = sut(events, { gas: 100_000_000, bytes: 131_072 - 4_096 });
    expect(plan.actions.length).toBe(Math.floor((131_072 - 4_096 - TRANSACTION_OVERHEAD_BYTES) / itemBytes));
    expect(TRANSACTION_OVERHEAD_BYTES + plan.actions.length * itemBytes).toBeLessThanOrEqual(131_072 - 4_096);
    expect(plan.full).toBe(true);
    expect(plan.tooLarge).toBeUndefined();
  });

  it("names the first action when it alone exceeds a limit, so that it fails instead of blocking the signer", () => {
    const bigOne = largestEvent(1);
    const bytesTooFew = sut([bigOne, scan(2)], { gas: 10_000_000, bytes: encodedItemBytes(bigOne.item) });
    expect(bytesTooFew.actions).toEqual([]);
    expect(bytesTooFew.tooLarge?.action).toBe(bigOne);
    expect(bytesTooFew.tooLarge?.reason).toMatch(/bytes/);
    const gasTooLittle = sut([scan(1)], { gas: BATCH_BASE_GAS + 1_000, bytes: 100_000 });
    expect(gasTooLittle.tooLarge?.reason).toMatch(/gas/);
  });
});
