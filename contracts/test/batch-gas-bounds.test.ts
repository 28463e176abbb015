// First: the writer's modules below are the service's CommonJS TypeScript.
import "../scripts/service-require.js";

import { expect } from "chai";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { planBatch } from "../../src/chain/writer/sending/batch-plan.js";
import type { PendingAction } from "../../src/chain/writer/sending/pending-action.js";
import { encodeBatch, type RegistryBatchItem, tokenIdOf } from "../scripts/registry.js";
import { registryLogs } from "./support/logs.js";
import { deployRegistryFixture, registerEventItem, soldItem } from "./support/registry-fixture.js";

const { networkHelpers } = await network.create();

const EVENTS = 9;
const TICKETS = 70;

/** Nine events, each with 70 tickets sold (two flag words apiece). */
async function nineEvents(connection: NetworkConnection) {
  const base = await deployRegistryFixture(connection);
  for (let event = 1n; event <= BigInt(EVENTS); event++) {
    const sales = Array.from({ length: TICKETS }, (_, i) => soldItem(tokenIdOf(event, BigInt(i + 1)), `ticket-${event}-${i}`));
    await base.execute([registerEventItem(event, `event-${event}`), ...sales]);
  }
  return base;
}

const asPending = (items: RegistryBatchItem[]): PendingAction[] =>
  items.map((item, i) => ({ id: `a${i}`, seq: BigInt(i), organizationId: "organization", acceptedAt: new Date(), item }));

/** Item `i` of a batch that visits the events in turn: event (i mod `events`) + 1, and a serial that moves on every round. */
function inTurn(count: number, events: number, item: (tokenId: bigint) => RegistryBatchItem): RegistryBatchItem[] {
  return Array.from({ length: count }, (_, i) => item(tokenIdOf(BigInt((i % events) + 1), BigInt(Math.floor(i / events) + 1))));
}

/**
 * The writer sets a batch's gas limit from its plan (src/chain/writer/sending): a batch whose items alternate
 * between events, the registry's costliest order for its ERC-4906 bookkeeping, must still fit its limit,
 * and signal each event once while no more than eight events alternate.
 */
describe("TicketRegistry batches within the writer's planned gas", () => {
  const cases: { name: string; items: () => RegistryBatchItem[]; signals: number; failures?: number }[] = [
    {
      name: "check-ins alternating between two events",
      items: () => inTurn(120, 2, (tokenId) => ({ action: "checkedIn", tokenId, orderTime: 1n })),
      signals: 2,
    },
    {
      name: "invalidations taking four events in turn",
      items: () => inTurn(120, 4, (tokenId) => ({ action: "invalidated", tokenId, orderTime: 1n })),
      signals: 4,
    },
    { name: "check-ins taking eight events in turn", items: () => inTurn(120, 8, (tokenId) => ({ action: "checkedIn", tokenId, orderTime: 1n })), signals: 8 },
    {
      // The registry keeps eight events apart: a ninth in turn makes every item signal (its costliest case, priced by the plan).
      name: "check-ins taking nine events in turn",
      items: () => inTurn(117, 9, (tokenId) => ({ action: "checkedIn", tokenId, orderTime: 1n })),
      signals: 117,
    },
    {
      name: "sales alternating between three events",
      items: () => inTurn(90, 3, (tokenId) => soldItem(tokenId + 100n, `late-${tokenId}`)),
      signals: 3,
    },
    {
      // Each cancellation signals on its own; the check-ins after it in its event are refused and signal nothing.
      name: "cancellations of eight events among their check-ins",
      items: () =>
        inTurn(96, 8, (tokenId) => ({ action: "checkedIn", tokenId, orderTime: 1n })).flatMap((item, i) =>
          i >= 48 && i < 56 ? [{ action: "cancelEvent", eventIndex: BigInt(i - 47) } as const, item] : [item],
        ),
      signals: 8 + 8,
      failures: 8 * 6,
    },
    {
      name: "resales alternating between two events",
      items: () => inTurn(60, 2, (tokenId) => ({ action: "resold", tokenId, price: "5", orderTime: 1n })),
      signals: 2,
    },
  ];

  for (const { name, items, signals, failures = 0 } of cases) {
    it(`fits ${name}`, async () => {
      const { registry, asOperator } = await networkHelpers.loadFixture(nineEvents);
      const batch = items();
      const plan = planBatch(asPending(batch), { gas: 15_000_000, bytes: 126_976 });
      expect(plan.actions).to.have.length(batch.length);
      const tx = await asOperator.execute(encodeBatch(batch), { gasLimit: plan.gasLimit });
      const receipt = await tx.wait();
      expect(receipt?.status).to.equal(1);
      expect(Number(receipt!.gasUsed)).to.be.at.most(plan.gasLimit);
      const logs = await registryLogs(registry, tx);
      expect(logs.filter((log) => log.name === "ItemFailed")).to.have.length(failures);
      expect(logs.filter((log) => log.name === "BatchMetadataUpdate")).to.have.length(signals);
    });
  }

  it("signals each event of an alternating batch over exactly the tokens it changed", async () => {
    const { registry, asOperator } = await networkHelpers.loadFixture(nineEvents);
    const batch = inTurn(8, 2, (tokenId) => ({ action: "checkedIn", tokenId, orderTime: 1n }));
    const logs = await registryLogs(registry, await asOperator.execute(encodeBatch(batch)));
    const ranges = logs.filter((log) => log.name === "BatchMetadataUpdate").map((log) => [log.args[0] as bigint, log.args[1] as bigint]);
    expect(ranges).to.deep.equal([
      [tokenIdOf(2n, 1n), tokenIdOf(2n, 4n)],
      [tokenIdOf(1n, 1n), tokenIdOf(1n, 4n)],
    ]);
  });
});
