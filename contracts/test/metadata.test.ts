import { expect } from "chai";
import type { ContractTransactionResponse } from "ethers";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { RegistryItemFailure as Failure, type RegistryBatchItem, tokenIdOf } from "../scripts/registry.js";
import type { TicketRegistry } from "../types/index.js";
import { itemFailures, registryLogs } from "./support/logs.js";
import { deployRegistryFixture, registerEventItem, registryWithTicketsFixture, sampleDetails, soldItem } from "./support/registry-fixture.js";

const { ethers, networkHelpers } = await network.create();

const LAST_SERIAL = (1n << 64n) - 1n;

/** A TicketView result as a plain object. */
function plain(view: Awaited<ReturnType<TicketRegistry["ticket"]>>) {
  const { eventIndex, serial, eventKey, holder, checkedIn, invalidated, claimed, resales } = view;
  return { eventIndex, serial, eventKey, holder, checkedIn, invalidated, claimed, resales };
}

/** The [from, to] of every ERC-4906 BatchMetadataUpdate of the transaction, in order. */
async function metadataSignals(registry: TicketRegistry, tx: ContractTransactionResponse): Promise<[bigint, bigint][]> {
  const logs = await registryLogs(registry, tx);
  return logs.filter((log) => log.name === "BatchMetadataUpdate").map((log) => [log.args[0] as bigint, log.args[1] as bigint]);
}

const sales = (eventIndex: bigint, serials: number[]): RegistryBatchItem[] =>
  serials.map((serial) => soldItem(tokenIdOf(eventIndex, BigInt(serial)), `ticket-${eventIndex}-${serial}`));

async function twoEvents(connection: NetworkConnection) {
  const base = await deployRegistryFixture(connection);
  await base.execute([registerEventItem(1n, "event-1"), registerEventItem(2n, "event-2")]);
  return base;
}

/** Event 1 with serials 1..200 sold, and event 2 with serials 1..4. */
async function soldTickets(connection: NetworkConnection) {
  const base = await twoEvents(connection);
  const serials = Array.from({ length: 200 }, (_, i) => i + 1);
  await base.execute([...sales(1n, serials.slice(0, 100))]);
  await base.execute([...sales(1n, serials.slice(100)), ...sales(2n, [1, 2, 3, 4])]);
  return base;
}

describe("TicketRegistry metadata", () => {
  describe("ERC-4906 signals of batches", () => {
    it("signals a run of sales once, from its lowest to its highest token, across flag words", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(twoEvents);
      const tx = await execute(
        sales(
          1n,
          Array.from({ length: 100 }, (_, i) => i + 1),
        ),
      );
      expect(await metadataSignals(registry, tx)).to.deep.equal([[tokenIdOf(1n, 1n), tokenIdOf(1n, 100n)]]);
    });

    it("takes the lowest and the highest token whatever their order in the batch", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(twoEvents);
      const tx = await execute(sales(1n, [70, 3, 130, 64, 5]));
      expect(await metadataSignals(registry, tx)).to.deep.equal([[tokenIdOf(1n, 3n), tokenIdOf(1n, 130n)]]);
    });

    it("signals each event of a batch once, never once per ticket, across runs and however its items alternate", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(soldTickets);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIdOf(1n, 10n), orderTime: 1n },
        { action: "checkedIn", tokenId: tokenIdOf(1n, 11n), orderTime: 1n },
        { action: "invalidated", tokenId: tokenIdOf(1n, 150n), orderTime: 1n },
        { action: "resold", tokenId: tokenIdOf(1n, 7n), price: "30", orderTime: 1n },
        { action: "checkedIn", tokenId: tokenIdOf(2n, 2n), orderTime: 1n },
        { action: "resold", tokenId: tokenIdOf(2n, 4n), price: "30", orderTime: 1n },
        { action: "invalidated", tokenId: tokenIdOf(1n, 199n), orderTime: 1n },
      ]);
      expect(await metadataSignals(registry, tx)).to.deep.equal([
        [tokenIdOf(1n, 7n), tokenIdOf(1n, 199n)],
        [tokenIdOf(2n, 2n), tokenIdOf(2n, 4n)],
      ]);
    });

    it("keeps the events it parked during a run of check-ins through the runs after it (the run's record buffer is freed)", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(soldTickets);
      await execute([registerEventItem(3n, "event-3")]);
      const invalidations = Array.from({ length: 12 }, (_, i) => ({ action: "invalidated" as const, tokenId: tokenIdOf(1n, 150n + BigInt(i)), orderTime: 1n }));
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIdOf(1n, 10n), orderTime: 1n },
        { action: "checkedIn", tokenId: tokenIdOf(2n, 2n), orderTime: 1n },
        { action: "checkedIn", tokenId: tokenIdOf(1n, 11n), orderTime: 1n },
        ...invalidations,
        ...sales(3n, [1, 2, 3]),
        { action: "checkedIn", tokenId: tokenIdOf(2n, 3n), orderTime: 1n },
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([]);
      expect((await registry.eventRecord(3n)).ticketsSold).to.equal(3n);
      expect((await registry.eventRecord(1n)).ticketsSold).to.equal(200n);
      expect(plain(await registry.ticket(tokenIdOf(3n, 3n))).eventIndex).to.equal(3n);
      expect(await metadataSignals(registry, tx)).to.have.deep.members([
        [tokenIdOf(1n, 10n), tokenIdOf(1n, 161n)],
        [tokenIdOf(2n, 2n), tokenIdOf(2n, 3n)],
        [tokenIdOf(3n, 1n), tokenIdOf(3n, 3n)],
      ]);
    });

    it("signals resales and claims over the tokens they moved", async () => {
      const { registry, execute, alice } = await networkHelpers.loadFixture(soldTickets);
      const resold = await execute([
        { action: "resold", tokenId: tokenIdOf(1n, 40n), price: "30", orderTime: 1n },
        { action: "resold", tokenId: tokenIdOf(1n, 12n), price: "30", orderTime: 1n },
      ]);
      expect(await metadataSignals(registry, resold)).to.deep.equal([[tokenIdOf(1n, 12n), tokenIdOf(1n, 40n)]]);
      const claimed = await execute([
        { action: "checkedIn", tokenId: tokenIdOf(1n, 90n), orderTime: 1n },
        { action: "claimed", tokenId: tokenIdOf(1n, 90n), to: alice.address },
      ]);
      expect(await metadataSignals(registry, claimed)).to.deep.equal([[tokenIdOf(1n, 90n), tokenIdOf(1n, 90n)]]);
      expect((await registry.ticket(tokenIdOf(1n, 90n))).claimed).to.equal(true);
    });

    it("leaves out items that change nothing: a repeated check-in, a refused item", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(soldTickets);
      await execute([{ action: "checkedIn", tokenId: tokenIdOf(1n, 5n), orderTime: 1n }]);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIdOf(1n, 5n), orderTime: 2n },
        { action: "invalidated", tokenId: tokenIdOf(1n, 5n), orderTime: 2n },
        { action: "checkedIn", tokenId: tokenIdOf(1n, 300n), orderTime: 2n },
        registerEventItem(3n, "event-3"),
      ]);
      expect(await metadataSignals(registry, tx)).to.deep.equal([]);
    });

    it("signals an event update over every token the event can have", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(soldTickets);
      const tx = await execute([{ action: "updateEvent", eventIndex: 2n, details: { ...sampleDetails, name: "Moved indoors" } }]);
      expect(await metadataSignals(registry, tx)).to.deep.equal([[tokenIdOf(2n, 1n), tokenIdOf(2n, LAST_SERIAL)]]);
    });

    it("keeps a batch's flags right when one ticket is sold, checked in and claimed in it", async () => {
      const { registry, execute, alice } = await networkHelpers.loadFixture(twoEvents);
      const tokenId = tokenIdOf(1n, 65n);
      const tx = await execute([
        ...sales(1n, [65, 1]),
        { action: "checkedIn", tokenId, orderTime: 1n },
        { action: "resold", tokenId: tokenIdOf(1n, 1n), price: "1", orderTime: 1n },
        { action: "claimed", tokenId, to: alice.address },
        { action: "resold", tokenId, price: "1", orderTime: 1n },
      ]);
      expect(await metadataSignals(registry, tx)).to.deep.equal([[tokenIdOf(1n, 1n), tokenId]]);
      // The last resale sees the claim made earlier in the same batch (still only in the batch's memory).
      expect(await itemFailures(registry, tx)).to.deep.equal([{ index: 5, subject: tokenId, reason: Failure.TicketClaimed }]);
      const view = await registry.ticket(tokenId);
      expect([view.checkedIn, view.claimed, view.holder]).to.deep.equal([true, true, alice.address]);
      expect((await registry.ticket(tokenIdOf(1n, 1n))).resales).to.equal(1n);
    });
  });

  it("refuses a resale of a ticket invalidated earlier in the same batch, whose flags are not stored yet", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(soldTickets);
    const tokenId = tokenIdOf(1n, 9n);
    const tx = await execute([
      { action: "invalidated", tokenId, orderTime: 1n },
      { action: "resold", tokenId, price: "1", orderTime: 1n },
      { action: "checkedIn", tokenId, orderTime: 1n },
    ]);
    expect(await itemFailures(registry, tx)).to.deep.equal([
      { index: 1, subject: tokenId, reason: Failure.TicketInvalidated },
      { index: 2, subject: tokenId, reason: Failure.TicketInvalidated },
    ]);
    expect((await registry.ticket(tokenId)).resales).to.equal(0n);
  });

  describe("contractURI (ERC-7572)", () => {
    it("serves the URI it was deployed with and lets only the admin change it", async () => {
      const { registry, admin, operator } = await networkHelpers.loadFixture(deployRegistryFixture);
      expect(await registry.contractURI()).to.equal("https://tickets.example.com/tokens/collection");
      await expect(registry.connect(admin).setContractURI("ipfs://collection.json")).to.emit(registry, "ContractURIUpdated").withArgs();
      expect(await registry.contractURI()).to.equal("ipfs://collection.json");
      await expect(registry.connect(operator).setContractURI("x"))
        .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
        .withArgs(operator.address, await registry.DEFAULT_ADMIN_ROLE());
    });
  });

  describe("tickets", () => {
    it("answers many tokens in one call, as ticket does, with a zero holder for a token never minted", async () => {
      const { registry, execute, tokenIds, alice } = await networkHelpers.loadFixture(registryWithTicketsFixture);
      await execute([
        { action: "checkedIn", tokenId: tokenIds[1], orderTime: 1n },
        { action: "claimed", tokenId: tokenIds[1], to: alice.address },
        { action: "resold", tokenId: tokenIds[2], price: "1", orderTime: 1n },
      ]);
      const unsold = tokenIdOf(1n, 50n);
      const unknownEvent = tokenIdOf(9n, 1n);
      const views = await registry.tickets([...tokenIds, unsold, unknownEvent]);
      for (const [i, tokenId] of tokenIds.entries()) expect(plain(views[i])).to.deep.equal(plain(await registry.ticket(tokenId)));
      expect(plain(views[4])).to.deep.equal({
        eventIndex: 1n,
        serial: 50n,
        eventKey: (await registry.eventRecord(1n)).eventKey,
        holder: ethers.ZeroAddress,
        checkedIn: false,
        invalidated: false,
        claimed: false,
        resales: 0n,
      });
      expect(views[5].holder).to.equal(ethers.ZeroAddress);
      expect(views[5].eventKey).to.equal(ethers.ZeroHash);
    });
  });
});
