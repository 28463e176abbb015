import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { anyOrganizationAtShare, fairOrder as sut } from "./fair-order";
import { itemGas } from "./item-gas";
import type { PendingAction } from "./pending-action";

let seq = 0;
const sale = (organizationId: string): PendingAction => {
  seq += 1;
  return {
    id: `${organizationId}${seq}`,
    seq: BigInt(seq),
    organizationId,
    acceptedAt: new Date(),
    item: { action: "sold", tokenId: BigInt(seq), ticketHash: "0x" + "00".repeat(32), price: "1", orderTime: 1n },
  };
};
const registration = (organizationId: string): PendingAction => {
  seq += 1;
  return {
    id: `${organizationId}${seq}`,
    seq: BigInt(seq),
    organizationId,
    acceptedAt: new Date(),
    item: {
      action: "registerEvent",
      eventIndex: BigInt(seq),
      eventKey: "0x" + "11".repeat(32),
      ticketeer: "0x" + "22".repeat(32),
      details: {
        name: "n",
        currency: "EUR",
        shopUrl: "",
        imageUrl: "",
        latitude: 0,
        longitude: 0,
        startTime: 0n,
        endTime: 0n,
        organizer: "o",
        metadataHash: ZeroHash,
      },
    },
  };
};
const sales = (organizationId: string, count: number) => Array.from({ length: count }, () => sale(organizationId));
const SALE_GAS = itemGas(sale("x").item);
const inAcceptanceOrder = (actions: PendingAction[]) => [...actions].sort((a, b) => (a.seq < b.seq ? -1 : 1));
const of = (order: PendingAction[], organizationId: string) => order.filter((action) => action.organizationId === organizationId);

describe("fairOrder", () => {
  it("leaves one organization's actions in acceptance order", () => {
    const waiting = sales("a", 5);
    expect(sut(waiting, SALE_GAS)).toEqual(waiting);
  });

  it("puts another organization's one sale after one turn of a backlog accepted before it, not after the backlog", () => {
    const backlog = sales("a", 1_000);
    const single = sale("b");

    const order = sut([...backlog, single], 10 * SALE_GAS);

    expect(order.indexOf(single)).toBe(10);
    expect(of(order, "a")).toEqual(backlog);
    expect(order).toHaveLength(1_001);
  });

  it("gives organizations with backlogs turns of the quantum's worth each, in the order of their oldest action, each in its own order", () => {
    const waiting = inAcceptanceOrder([...sales("c", 30), ...sales("a", 30), ...sales("b", 30)]);

    const order = sut(waiting, 5 * SALE_GAS);

    expect(order.slice(0, 15).map((action) => action.organizationId)).toEqual([..."ccccc", ..."aaaaa", ..."bbbbb"]);
    for (const organization of ["a", "b", "c"]) expect(of(order, organization)).toEqual(of(waiting, organization));
  });

  it("carries what a turn could not spend: an action dearer than the quantum waits for its organization's later turns", () => {
    const event = registration("b");
    const waiting = [...sales("a", 40), event];
    const turnsNeeded = Math.ceil(itemGas(event.item) / (2 * SALE_GAS));

    const order = sut(waiting, 2 * SALE_GAS);

    expect(order.indexOf(event)).toBe(2 * turnsNeeded);
  });
});

describe("anyOrganizationAtShare", () => {
  it("says whether some organization was read up to its share, so that more of its may wait", () => {
    const waiting = [...sales("a", 2), ...sales("b", 3)];
    expect(anyOrganizationAtShare(waiting, 3)).toBe(true);
    expect(anyOrganizationAtShare(waiting, 4)).toBe(false);
  });
});
