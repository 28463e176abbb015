import { describe, expect, it } from "vitest";

import { planBatch as sut } from "./batch-plan";
import { BATCH_BASE_GAS } from "./item-gas";
import type { PendingAction } from "./pending-action";

const scan = (seq: number): PendingAction => ({ id: `a${seq}`, seq: BigInt(seq), acceptedAt: new Date(), item: { action: "checkedIn", tokenId: 1n, orderTime: 1n } });
const claim = (seq: number): PendingAction => ({ id: `c${seq}`, seq: BigInt(seq), acceptedAt: new Date(), item: { action: "claimed", tokenId: 1n, to: "0x52908400098527886E0F7030069857D2E4169EE7" } });

describe("planBatch", () => {
  it("takes everything that fits, with the base cost in the gas limit", () => {
    const plan = sut([scan(1), scan(2)], 1_000_000);
    expect(plan.actions.map((a) => a.id)).toEqual(["a1", "a2"]);
    expect(plan.gasLimit).toBe(BATCH_BASE_GAS + 6_000);
    expect(plan.full).toBe(false);
  });

  it("stops at the first item over the budget, keeping acceptance order", () => {
    const plan = sut([scan(1), claim(2), scan(3)], BATCH_BASE_GAS + 3_000 + 1_000);
    expect(plan.actions.map((a) => a.id)).toEqual(["a1"]);
    expect(plan.full).toBe(true);
  });

  it("fills a 15M-gas budget with about 1,500 sales", () => {
    const sales = Array.from({ length: 3000 }, (_, i): PendingAction => ({
      id: `s${i}`,
      seq: BigInt(i),
      acceptedAt: new Date(),
      item: { action: "sold", tokenId: BigInt(i + 1), ticketHash: "0x" + "00".repeat(32), price: "1", orderTime: 1n },
    }));
    const plan = sut(sales, 15_000_000);
    expect(plan.actions.length).toBe(Math.floor((15_000_000 - BATCH_BASE_GAS) / 9_500));
    expect(plan.full).toBe(true);
  });
});
