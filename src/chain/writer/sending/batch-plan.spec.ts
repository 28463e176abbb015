import { describe, expect, it } from "vitest";

import { planBatch as sut } from "./batch-plan";
import { BATCH_BASE_GAS } from "./item-gas";
import type { PendingAction } from "./pending-action";

const scan = (seq: number): PendingAction => ({
  id: `a${seq}`,
  seq: BigInt(seq),
  acceptedAt: new Date(),
  item: { action: "checkedIn", tokenId: 1n, orderTime: 1n },
});
const sale = (seq: number, tokenId: bigint): PendingAction => ({
  id: `s${seq}`,
  seq: BigInt(seq),
  acceptedAt: new Date(),
  item: { action: "sold", tokenId, ticketHash: "0x" + "00".repeat(32), price: "1", orderTime: 1n },
});
const claim = (seq: number): PendingAction => ({
  id: `c${seq}`,
  seq: BigInt(seq),
  acceptedAt: new Date(),
  item: { action: "claimed", tokenId: 1n, to: "0x52908400098527886E0F7030069857D2E4169EE7" },
});

describe("planBatch", () => {
  it("takes everything that fits, with the base cost in the gas limit", () => {
    const plan = sut([scan(1), scan(2)], 1_000_000);
    expect(plan.actions.map((a) => a.id)).toEqual(["a1", "a2"]);
    // Two check-ins of one ticket: the cold rewrite of its flag slot is paid once.
    expect(plan.gasLimit).toBe(BATCH_BASE_GAS + 2 * 3_000 + 5_000);
    expect(plan.full).toBe(false);
  });

  it("stops at the first item over the budget, keeping acceptance order", () => {
    const plan = sut([scan(1), claim(2), scan(3)], BATCH_BASE_GAS + 3_000 + 5_000 + 1_000);
    expect(plan.actions.map((a) => a.id)).toEqual(["a1"]);
    expect(plan.full).toBe(true);
  });

  it("fills a 15M-gas budget with about 1,500 sales", () => {
    const sales = Array.from({ length: 3000 }, (_, i) => sale(i, BigInt(i + 1)));
    const plan = sut(sales, 15_000_000);
    // 1,514 consecutive sales of one event: 24 flag slots written fresh (64 tickets each) and one sale counter.
    expect(plan.actions.length).toBe(1_514);
    expect(plan.gasLimit).toBe(BATCH_BASE_GAS + 1_514 * 9_500 + 24 * 22_100 + 24_200);
    expect(plan.full).toBe(true);
  });

  it("charges the storage a sale may be the first to write once per batch: its flag slot and its event's counter", () => {
    const event = (index: bigint, serial: bigint) => (index << 64n) | serial;
    const first = sut([sale(1, event(1n, 1n))], 1_000_000).gasLimit;
    expect(first).toBe(BATCH_BASE_GAS + 9_500 + 22_100 + 24_200);
    // A neighbour shares both; a ticket 64 serials on needs a flag slot of its own; another event needs both again.
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(1n, 2n))], 1_000_000).gasLimit).toBe(first + 9_500);
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(1n, 65n))], 1_000_000).gasLimit).toBe(first + 9_500 + 22_100);
    expect(sut([sale(1, event(1n, 1n)), sale(2, event(2n, 1n))], 1_000_000).gasLimit).toBe(2 * first - BATCH_BASE_GAS);
  });

  it("charges a check-in's flag slot unless an earlier item of the batch wrote it", () => {
    const scanOf = (seq: number, tokenId: bigint): PendingAction => ({ ...scan(seq), item: { action: "checkedIn", tokenId, orderTime: 1n } });
    expect(sut([scanOf(1, 1n), scanOf(2, 64n)], 1_000_000).gasLimit).toBe(BATCH_BASE_GAS + 2 * (3_000 + 5_000));
    expect(sut([sale(1, 2n), scanOf(2, 2n)], 1_000_000).gasLimit).toBe(BATCH_BASE_GAS + 9_500 + 22_100 + 24_200 + 3_000);
  });
});
