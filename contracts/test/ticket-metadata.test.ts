import { expect } from "chai";
import { id, type LogDescription } from "ethers";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { encodeBatch, RegistryItemFailure as Failure, ticketHashOf, tokenIdOf, type RegistryWireItem } from "../scripts/registry.js";
import { itemFailures, registryLogs } from "./support/logs.js";
import { registerEventItem, registryWithTicketsFixture } from "./support/registry-fixture.js";

const { networkHelpers } = await network.create();

const hashOf = (tokenId: bigint) => id(`metadata-${tokenId}`);
const update = (tokenId: bigint, metadataHash = hashOf(tokenId)): RegistryWireItem => ({ action: "updateTicket", tokenId, metadataHash });
const soldWithMetadata = (tokenId: bigint): RegistryWireItem => ({
  action: "soldWithMetadata",
  tokenId,
  ticketHash: ticketHashOf(`ticket-${tokenId}`),
  price: "25.00",
  orderTime: 7n,
  metadataHash: hashOf(tokenId),
});

/** Splits a TicketsMetadataUpdated payload into its 48-byte records. */
function metadataRecords(records: string): { tokenId: bigint; metadataHash: string }[] {
  const hex = records.slice(2);
  const result = [];
  for (let at = 0; at < hex.length; at += 96) {
    result.push({ tokenId: BigInt("0x" + hex.slice(at, at + 32)), metadataHash: "0x" + hex.slice(at + 32, at + 96) });
  }
  return result;
}

/** The logs' names with their arguments, the records of TicketsMetadataUpdated decoded. */
function described(logs: LogDescription[]) {
  return logs.map((log) =>
    log.name === "TicketsMetadataUpdated" ? [log.name, metadataRecords(log.args.records as string)] : [log.name, ...log.args.toArray()],
  );
}

/** Event 1 with tickets 1..8 sold, event 2 registered and cancelled with ticket 1 sold before. */
async function ticketsOfTwoEvents(connection: NetworkConnection) {
  const base = await registryWithTicketsFixture(connection, 8);
  const cancelledTicket = tokenIdOf(2n, 1n);
  await base.execute([
    registerEventItem(2n, "event-2"),
    { action: "sold", tokenId: cancelledTicket, ticketHash: ticketHashOf("cancelled"), price: "1", orderTime: 1n },
    { action: "cancelEvent", eventIndex: 2n },
  ]);
  return { ...base, cancelledTicket };
}

describe("TicketRegistry ticket metadata", () => {
  describe("updateTicket (0x09)", () => {
    it("signals MetadataUpdate for a token alone and a range for consecutive tokens, and logs the run's hashes once", async () => {
      const { registry, execute, tokenIds: t } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const logs = await registryLogs(registry, await execute([update(t[0]), update(t[2]), update(t[3]), update(t[4]), update(t[6])]));
      expect(described(logs)).to.deep.equal([
        ["MetadataUpdate", t[0]],
        ["BatchMetadataUpdate", t[2], t[4]],
        ["TicketsMetadataUpdated", [t[0], t[2], t[3], t[4], t[6]].map((tokenId) => ({ tokenId, metadataHash: hashOf(tokenId) }))],
        ["MetadataUpdate", t[6]],
      ]);
    });

    it("signals once per run: a token updated again, or out of ascending order, starts another range", async () => {
      const { registry, execute, tokenIds: t } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const again = id("again");
      const logs = await registryLogs(
        registry,
        await execute([
          update(t[1]),
          update(t[2]),
          update(t[1], again),
          update(t[0]),
          { action: "checkedIn", tokenId: t[0], orderTime: 1n },
          update(t[5]),
          update(t[6]),
        ]),
      );
      expect(described(logs).filter(([name]) => name !== "TicketsCheckedIn")).to.deep.equal([
        ["BatchMetadataUpdate", t[1], t[2]],
        ["MetadataUpdate", t[1]],
        [
          "TicketsMetadataUpdated",
          [
            { tokenId: t[1], metadataHash: hashOf(t[1]) },
            { tokenId: t[2], metadataHash: hashOf(t[2]) },
            { tokenId: t[1], metadataHash: again },
            { tokenId: t[0], metadataHash: hashOf(t[0]) },
          ],
        ],
        ["MetadataUpdate", t[0]],
        // After the check-in between them, the second run: its own log and its own signal.
        ["TicketsMetadataUpdated", [t[5], t[6]].map((tokenId) => ({ tokenId, metadataHash: hashOf(tokenId) }))],
        ["BatchMetadataUpdate", t[5], t[6]],
        // The check-in's signal, at the end of the batch as every flag change's.
        ["BatchMetadataUpdate", t[0], t[0]],
      ]);
    });

    it("skips a token never minted and a token of a cancelled event, and leaves them out of the log and the signals", async () => {
      const { registry, execute, tokenIds: t, cancelledTicket } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const unsold = tokenIdOf(1n, 9n);
      const tx = await execute([update(t[0]), update(unsold), update(cancelledTicket), update(tokenIdOf(3n, 1n)), update(t[1])]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 1, subject: unsold, reason: Failure.TicketUnknown },
        { index: 2, subject: cancelledTicket, reason: Failure.EventCancelled },
        { index: 3, subject: tokenIdOf(3n, 1n), reason: Failure.TicketUnknown },
      ]);
      const logs = described(await registryLogs(registry, tx)).filter(([name]) => name !== "ItemFailed");
      expect(logs).to.deep.equal([
        ["TicketsMetadataUpdated", [t[0], t[1]].map((tokenId) => ({ tokenId, metadataHash: hashOf(tokenId) }))],
        ["BatchMetadataUpdate", t[0], t[1]],
      ]);
    });

    it("emits no log for a run whose every item was skipped", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const logs = await registryLogs(registry, await execute([update(tokenIdOf(1n, 50n))]));
      expect(logs.map((log) => log.name)).to.deep.equal(["ItemFailed"]);
    });

    it("updates a checked-in, invalidated or claimed ticket, and a ticket sold earlier in the same batch", async () => {
      const { registry, execute, tokenIds: t, alice } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      await execute([
        { action: "checkedIn", tokenId: t[0], orderTime: 1n },
        { action: "claimed", tokenId: t[0], to: alice.address },
        { action: "invalidated", tokenId: t[1], orderTime: 1n },
      ]);
      const fresh = tokenIdOf(1n, 20n);
      const tx = await execute([
        { action: "sold", tokenId: fresh, ticketHash: ticketHashOf("fresh"), price: "1", orderTime: 1n },
        update(t[0]),
        update(t[1]),
        update(fresh),
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([]);
      const log = (await registryLogs(registry, tx)).find((entry) => entry.name === "TicketsMetadataUpdated")!;
      expect(metadataRecords(log.args.records as string).map((record) => record.tokenId)).to.deep.equal([t[0], t[1], fresh]);
    });

    it("writes no storage: the tickets' state and the event's record stay as they were", async () => {
      const { registry, execute, tokenIds: t } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const before = { tickets: await registry.tickets(t), event: await registry.eventRecord(1n) };
      const receipt = await (await execute(t.map((tokenId) => update(tokenId)))).wait();
      expect({ tickets: await registry.tickets(t), event: await registry.eventRecord(1n) }).to.deep.equal(before);
      // Eight updates without a storage write: far below the 2,900 gas of even one slot rewritten per ticket.
      expect(Number(receipt!.gasUsed)).to.be.below(21_000 + 8 * 16 * 49 + 8 * 2_900);
    });

    it("reverts a batch whose update is cut short, whatever came before it", async () => {
      const { registry, asOperator, tokenIds: t } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const batch = encodeBatch([update(t[0]), update(t[1])]);
      await expect(asOperator.execute(batch.slice(0, -2)))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(49n);
      await expect(asOperator.execute(encodeBatch([update(t[0])]).slice(0, 2 + 2 * 17)))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(0n);
    });
  });

  describe("soldWithMetadata (0x0A)", () => {
    it("sells exactly as a sale does and logs each sale's hash in one TicketsMetadataUpdated per run", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const [a, b, c] = [tokenIdOf(1n, 10n), tokenIdOf(1n, 11n), tokenIdOf(1n, 13n)];
      const custody = await registry.custodyAddress(1n);
      const logs = await registryLogs(registry, await execute([soldWithMetadata(a), soldWithMetadata(b), soldWithMetadata(c)]));
      expect(described(logs)).to.deep.equal([
        ...[a, b, c].flatMap((tokenId) => [
          ["Transfer", "0x0000000000000000000000000000000000000000", custody, tokenId],
          ["TicketSold", tokenId, ticketHashOf(`ticket-${tokenId}`), 25_000_000n, 7n],
        ]),
        ["TicketsMetadataUpdated", [a, b, c].map((tokenId) => ({ tokenId, metadataHash: hashOf(tokenId) }))],
        // Signalled as sales are, once per event of the batch.
        ["BatchMetadataUpdate", a, c],
      ]);
      expect(await registry.ownerOf(c)).to.equal(custody);
      expect((await registry.eventRecord(1n)).ticketsSold).to.equal(11n);
    });

    it("refuses what a sale refuses and leaves the refused items out of the log", async () => {
      const { registry, execute, tokenIds: t } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const fresh = tokenIdOf(1n, 30n);
      const serialZero = 1n << 64n;
      const tx = await execute([
        soldWithMetadata(t[0]),
        soldWithMetadata(tokenIdOf(2n, 5n)),
        soldWithMetadata(tokenIdOf(9n, 1n)),
        soldWithMetadata(serialZero),
        soldWithMetadata(fresh),
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: t[0], reason: Failure.TicketExists },
        { index: 1, subject: tokenIdOf(2n, 5n), reason: Failure.EventCancelled },
        { index: 2, subject: tokenIdOf(9n, 1n), reason: Failure.EventUnknown },
        { index: 3, subject: serialZero, reason: Failure.InvalidSerial },
      ]);
      const log = (await registryLogs(registry, tx)).find((entry) => entry.name === "TicketsMetadataUpdated")!;
      expect(metadataRecords(log.args.records as string)).to.deep.equal([{ tokenId: fresh, metadataHash: hashOf(fresh) }]);
    });

    it("keeps separate runs of sales with and without metadata in order", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const [a, b, c] = [tokenIdOf(1n, 40n), tokenIdOf(1n, 41n), tokenIdOf(1n, 42n)];
      const plain: RegistryWireItem = { action: "sold", tokenId: b, ticketHash: ticketHashOf("plain"), price: "25.00", orderTime: 7n };
      const logs = await registryLogs(registry, await execute([soldWithMetadata(a), plain, soldWithMetadata(c)]));
      const runs = logs.filter((log) => log.name === "TicketsMetadataUpdated").map((log) => metadataRecords(log.args.records as string));
      expect(runs).to.deep.equal([[{ tokenId: a, metadataHash: hashOf(a) }], [{ tokenId: c, metadataHash: hashOf(c) }]]);
      expect(logs.filter((log) => log.name === "TicketSold").map((log) => log.args.tokenId)).to.deep.equal([a, b, c]);
    });

    it("reverts a batch whose sale with metadata is cut short", async () => {
      const { registry, asOperator } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const batch = encodeBatch([soldWithMetadata(tokenIdOf(1n, 60n))]);
      // Cut inside the hash: the sale's fields alone are not an item.
      await expect(asOperator.execute(batch.slice(0, 2 + 2 * 73)))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(0n);
      await expect(asOperator.execute(batch.slice(0, -2)))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(0n);
    });
  });

  describe("event metadata hash", () => {
    it("reverts an event registration cut inside its metadata hash", async () => {
      const { registry, asOperator } = await networkHelpers.loadFixture(ticketsOfTwoEvents);
      const batch = encodeBatch([registerEventItem(5n, "event-5")]);
      await expect(asOperator.execute(batch.slice(0, -2))).to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch");
      await expect(asOperator.execute(batch)).to.emit(registry, "EventRegistered");
    });
  });
});
