import { expect } from "chai";
import { AbiCoder, keccak256, sha256, toUtf8Bytes, ZeroAddress } from "ethers";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { encodeBatch, eventKeyOf, RegistryItemFailure as Failure, ticketHashOf, ticketeerKeyOf, tokenIdOf } from "../scripts/registry.js";
import { decodeRecords, itemFailures, registryLogs } from "./support/logs.js";
import { deployRegistryFixture, registerEventItem, registryWithTicketsFixture, sampleDetails, soldItem, TICKETEER_ID } from "./support/registry-fixture.js";

const { ethers, networkHelpers } = await network.create();

const DETAILS_TUPLE = "tuple(string,string,string,string,int32,int32,uint64,uint64,string,bytes32)";

function detailsTuple(details = sampleDetails) {
  return [
    details.name,
    details.currency,
    details.shopUrl,
    details.imageUrl,
    BigInt(Math.round(details.latitude * 1e7)),
    BigInt(Math.round(details.longitude * 1e7)),
    details.startTime,
    details.endTime,
    details.organizer,
    details.metadataHash,
  ];
}

async function fourTickets(connection: NetworkConnection) {
  return registryWithTicketsFixture(connection, 4);
}

describe("TicketRegistry", () => {
  describe("roles", () => {
    it("lets only operators execute batches", async () => {
      const { registry, outsider, admin } = await networkHelpers.loadFixture(deployRegistryFixture);
      const batch = encodeBatch([registerEventItem(1n, "e")]);
      for (const signer of [outsider, admin]) {
        await expect(registry.connect(signer).execute(batch))
          .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
          .withArgs(signer.address, await registry.OPERATOR_ROLE());
      }
    });

    it("lets only the admin pause, unpause, set the base URI and grant roles", async () => {
      const { registry, operator, outsider } = await networkHelpers.loadFixture(deployRegistryFixture);
      const adminRole = await registry.DEFAULT_ADMIN_ROLE();
      const operatorRole = await registry.OPERATOR_ROLE();
      const asOperator = registry.connect(operator);
      for (const call of [
        () => asOperator.pause(),
        () => asOperator.unpause(),
        () => asOperator.setBaseURI("x"),
        () => asOperator.grantRole(operatorRole, outsider.address),
      ]) {
        await expect(call()).to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount").withArgs(operator.address, adminRole);
      }
    });

    it("stops operator writes while paused and resumes after unpause", async () => {
      const { registry, admin, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      await expect(registry.connect(admin).pause()).to.emit(registry, "Paused").withArgs(admin.address);
      await expect(execute([registerEventItem(1n, "e")])).to.be.revertedWithCustomError(registry, "EnforcedPause");
      await expect(registry.connect(admin).unpause()).to.emit(registry, "Unpaused").withArgs(admin.address);
      await expect(execute([registerEventItem(1n, "e")])).to.emit(registry, "EventRegistered");
    });

    it("keeps claimed tokens transferable while paused", async () => {
      const { registry, admin, execute, tokenIds, alice, bob } = await networkHelpers.loadFixture(fourTickets);
      await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n },
        { action: "claimed", tokenId: tokenIds[0], to: alice.address },
      ]);
      await registry.connect(admin).pause();
      await registry.connect(alice).transferFrom(alice.address, bob.address, tokenIds[0]);
      expect(await registry.ownerOf(tokenIds[0])).to.equal(bob.address);
    });
  });

  describe("events", () => {
    it("registers an event with its on-chain fields, ticketeer and custody address", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      const eventKey = eventKeyOf(TICKETEER_ID, "event-1");
      const custody = await registry.custodyAddress(7n);
      await expect(execute([registerEventItem(7n, "event-1")]))
        .to.emit(registry, "EventRegistered")
        .withArgs(7n, eventKey, ticketeerKeyOf(TICKETEER_ID), custody, detailsTuple());

      const record = await registry.eventRecord(7n);
      expect(record.eventKey).to.equal(eventKey);
      expect(record.ticketeer).to.equal(sha256(toUtf8Bytes(TICKETEER_ID)));
      expect(record.detailsHash).to.equal(keccak256(AbiCoder.defaultAbiCoder().encode([DETAILS_TUPLE], [detailsTuple()])));
      expect(record.custody).to.equal(custody);
      expect(record.ticketsSold).to.equal(0n);
      expect(await registry.isCustodial(custody)).to.equal(true);
    });

    it("refuses a taken or zero event index and a zero key as item failures", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      await execute([registerEventItem(1n, "first")]);
      const tx = await execute([
        registerEventItem(1n, "second"),
        registerEventItem(0n, "third"),
        { ...registerEventItem(2n, "fourth"), eventKey: "0x" + "00".repeat(32) },
        registerEventItem(3n, "fifth"),
      ] as never);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: 1n, reason: Failure.EventExists },
        { index: 1, subject: 0n, reason: Failure.InvalidEventIndex },
        { index: 2, subject: 2n, reason: Failure.InvalidEventIndex },
      ]);
      expect((await registry.eventRecord(1n)).eventKey).to.equal(eventKeyOf(TICKETEER_ID, "first"));
      expect((await registry.eventRecord(3n)).eventKey).to.equal(eventKeyOf(TICKETEER_ID, "fifth"));
      await expect(registry.eventRecord(2n)).to.be.revertedWithCustomError(registry, "TicketRegistryEventUnknown").withArgs(2n);
    });

    it("accepts event indexes up to 2^40 - 1: every custodial address shares the mask's top 24 bits", async () => {
      const { registry, execute, alice } = await networkHelpers.loadFixture(deployRegistryFixture);
      const largest = (1n << 40n) - 1n;
      const tx = await execute([registerEventItem(largest, "largest"), registerEventItem(1n << 40n, "too-large")]);
      expect(await itemFailures(registry, tx)).to.deep.equal([{ index: 1, subject: 1n << 40n, reason: Failure.InvalidEventIndex }]);
      await execute([soldItem(tokenIdOf(largest, 1n), "at-the-limit")]);
      const custody = await registry.custodyAddress(largest);
      expect(await registry.isCustodial(custody)).to.equal(true);
      expect(await registry.balanceOf(custody)).to.equal(1n);
      expect(await registry.ownerOf(tokenIdOf(largest, 1n))).to.equal(custody);
      // The address of index 2^40 is a wallet: no event can have it.
      expect(await registry.isCustodial(await registry.custodyAddress(1n << 40n))).to.equal(false);
      expect(await registry.isCustodial(alice.address)).to.equal(false);
    });

    it("updates an event's details and refuses to update an unknown event", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      await execute([registerEventItem(1n, "event-1")]);
      const details = { ...sampleDetails, imageUrl: "https://img.example.com/new.png", latitude: -33.8688, longitude: 151.2093 };
      await expect(execute([{ action: "updateEvent", eventIndex: 1n, details }]))
        .to.emit(registry, "EventUpdated")
        .withArgs(1n, eventKeyOf(TICKETEER_ID, "event-1"), detailsTuple(details));
      expect((await registry.eventRecord(1n)).detailsHash).to.equal(keccak256(AbiCoder.defaultAbiCoder().encode([DETAILS_TUPLE], [detailsTuple(details)])));
      const tx = await execute([{ action: "updateEvent", eventIndex: 9n, details }]);
      expect(await itemFailures(registry, tx)).to.deep.equal([{ index: 0, subject: 9n, reason: Failure.EventUnknown }]);
    });

    it("records 255-character UTF-8 fields exactly", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      const details = { ...sampleDetails, name: "é".repeat(255), shopUrl: "https://s.example/" + "a".repeat(237) };
      await expect(execute([registerEventItem(1n, "e", details)]))
        .to.emit(registry, "EventRegistered")
        .withArgs(1n, eventKeyOf(TICKETEER_ID, "e"), ticketeerKeyOf(TICKETEER_ID), await registry.custodyAddress(1n), detailsTuple(details));
    });
  });

  describe("sold", () => {
    it("mints to the event's custody address with a sale record", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      const tokenId = tokenIdOf(1n, 1n);
      const custody = await registry.custodyAddress(1n);
      const tx = execute([registerEventItem(1n, "e"), soldItem(tokenId, "ticket-A", "12.5", 1_700_000_123n)]);
      await expect(tx).to.emit(registry, "Transfer").withArgs(ZeroAddress, custody, tokenId);
      await expect(tx)
        .to.emit(registry, "TicketSold")
        .withArgs(tokenId, sha256(toUtf8Bytes("ticket-A")), 12_500_000n, 1_700_000_123n);

      expect(await registry.ownerOf(tokenId)).to.equal(custody);
      expect(await registry.balanceOf(custody)).to.equal(1n);
      const view = await registry.ticket(tokenId);
      expect(view.eventIndex).to.equal(1n);
      expect(view.serial).to.equal(1n);
      expect(view.eventKey).to.equal(eventKeyOf(TICKETEER_ID, "e"));
      expect(view.holder).to.equal(custody);
      expect([view.checkedIn, view.invalidated, view.claimed, view.resales]).to.deep.equal([false, false, false, 0n]);
      expect((await registry.eventRecord(1n)).ticketsSold).to.equal(1n);
    });

    it("finds a sale by the SHA-256 of the ticket id", async () => {
      const { registry, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const logs = await registry.queryFilter(registry.filters.TicketSold(undefined, ticketHashOf("ticket-3")));
      expect(logs.map((log) => log.args.tokenId)).to.deep.equal([tokenIds[2]]);
    });

    it("refuses unknown events, serial zero, a second mint and unrepresentable prices", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const tx = await execute([
        soldItem(tokenIdOf(2n, 1n), "x"),
        soldItem(1n << 64n, "y"),
        soldItem(tokenIds[0], "again"),
        soldItem(tokenIdOf(1n, 10n), "too-precise", "1.0000001"),
        soldItem(tokenIdOf(1n, 11n), "too-large", "79228162514264337593544"),
        soldItem(tokenIdOf(1n, 12n), "fits", "79228162514264337593543.950335000"),
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: tokenIdOf(2n, 1n), reason: Failure.EventUnknown },
        { index: 1, subject: 1n << 64n, reason: Failure.InvalidSerial },
        { index: 2, subject: tokenIds[0], reason: Failure.TicketExists },
        { index: 3, subject: tokenIdOf(1n, 10n), reason: Failure.PriceNotRepresentable },
        { index: 4, subject: tokenIdOf(1n, 11n), reason: Failure.PriceNotRepresentable },
      ]);
      await expect(tx)
        .to.emit(registry, "TicketSold")
        .withArgs(tokenIdOf(1n, 12n), ticketHashOf("fits"), (1n << 96n) - 1n, 1_800_000_000n);
      await expect(registry.ownerOf(tokenIdOf(1n, 10n))).to.be.revertedWithCustomError(registry, "ERC721NonexistentToken");
      expect((await registry.eventRecord(1n)).ticketsSold).to.equal(5n);
    });

    it("sells in the same batch as the event registration, in order", async () => {
      const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
      const tx = await execute([soldItem(tokenIdOf(1n, 1n), "early"), registerEventItem(1n, "e"), soldItem(tokenIdOf(1n, 2n), "late")]);
      expect(await itemFailures(registry, tx)).to.deep.equal([{ index: 0, subject: tokenIdOf(1n, 1n), reason: Failure.EventUnknown }]);
      expect(await registry.ownerOf(tokenIdOf(1n, 2n))).to.equal(await registry.custodyAddress(1n));
    });
  });

  describe("resold", () => {
    it("moves the token to a fresh keyless holder on every resale", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const [tokenId] = tokenIds;
      const custody = await registry.custodyAddress(1n);
      const first = await registry.holderAddress(tokenId, 1);
      const second = await registry.holderAddress(tokenId, 2);
      expect(new Set([custody, first, second]).size).to.equal(3);

      const tx1 = execute([{ action: "resold", tokenId, price: "30", orderTime: 5n }]);
      await expect(tx1).to.emit(registry, "Transfer").withArgs(custody, first, tokenId);
      await expect(tx1).to.emit(registry, "TicketResold").withArgs(tokenId, 1, 30_000_000n, 5n);
      expect(await registry.ownerOf(tokenId)).to.equal(first);
      expect(await registry.balanceOf(custody)).to.equal(3n);
      expect(await registry.balanceOf(first)).to.equal(1n);

      await expect(execute([{ action: "resold", tokenId, price: "31.25", orderTime: 6n }]))
        .to.emit(registry, "Transfer")
        .withArgs(first, second, tokenId);
      expect(await registry.ownerOf(tokenId)).to.equal(second);
      expect(await registry.balanceOf(first)).to.equal(0n);
      expect(await registry.balanceOf(second)).to.equal(1n);
      expect(await registry.balanceOf(custody)).to.equal(3n);
      expect((await registry.ticket(tokenId)).resales).to.equal(2n);
      expect((await registry.eventRecord(1n)).ticketsInCustody).to.equal(3n);
      expect(await registry.isCustodial(first)).to.equal(true);
    });

    it("refuses unknown, checked-in, invalidated and claimed tickets and bad prices", async () => {
      const { registry, execute, tokenIds, alice } = await networkHelpers.loadFixture(fourTickets);
      const [checkedIn, invalidated, claimed, fresh] = tokenIds;
      await execute([
        { action: "checkedIn", tokenId: checkedIn, orderTime: 1n },
        { action: "invalidated", tokenId: invalidated, orderTime: 1n },
        { action: "checkedIn", tokenId: claimed, orderTime: 1n },
        { action: "claimed", tokenId: claimed, to: alice.address },
      ]);
      const resale = (tokenId: bigint, price = "1") => ({ action: "resold" as const, tokenId, price, orderTime: 2n });
      const tx = await execute([
        resale(tokenIdOf(1n, 99n)),
        resale(checkedIn),
        resale(invalidated),
        resale(claimed),
        resale(fresh, "0.0000001"),
        resale(fresh),
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: tokenIdOf(1n, 99n), reason: Failure.TicketUnknown },
        { index: 1, subject: checkedIn, reason: Failure.TicketCheckedIn },
        { index: 2, subject: invalidated, reason: Failure.TicketInvalidated },
        { index: 3, subject: claimed, reason: Failure.TicketClaimed },
        { index: 4, subject: fresh, reason: Failure.PriceNotRepresentable },
      ]);
      expect(await registry.ownerOf(claimed)).to.equal(alice.address);
      expect(await registry.ownerOf(fresh)).to.equal(await registry.holderAddress(fresh, 1));
    });
  });

  describe("check-in", () => {
    it("sets the flag one-way, records each scan and accepts a repeated scan", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 100n },
        { action: "checkedIn", tokenId: tokenIds[1], orderTime: 101n },
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 102n },
      ]);
      const logs = await registryLogs(registry, tx);
      expect(logs.map((log) => log.name)).to.deep.equal(["TicketsCheckedIn", "BatchMetadataUpdate"]);
      expect(decodeRecords(logs[0].args.records)).to.deep.equal([
        { tokenId: tokenIds[0], orderTime: 100n },
        { tokenId: tokenIds[1], orderTime: 101n },
        { tokenId: tokenIds[0], orderTime: 102n },
      ]);
      expect((await registry.ticket(tokenIds[0])).checkedIn).to.equal(true);
      expect((await registry.ticket(tokenIds[2])).checkedIn).to.equal(false);
    });

    it("refuses unknown and invalidated tickets and leaves them out of the record", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      await execute([{ action: "invalidated", tokenId: tokenIds[1], orderTime: 1n }]);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIdOf(1n, 50n), orderTime: 2n },
        { action: "checkedIn", tokenId: tokenIds[1], orderTime: 2n },
        { action: "checkedIn", tokenId: tokenIds[2], orderTime: 2n },
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: tokenIdOf(1n, 50n), reason: Failure.TicketUnknown },
        { index: 1, subject: tokenIds[1], reason: Failure.TicketInvalidated },
      ]);
      const records = (await registryLogs(registry, tx)).filter((log) => log.name === "TicketsCheckedIn");
      expect(decodeRecords(records[0].args.records)).to.deep.equal([{ tokenId: tokenIds[2], orderTime: 2n }]);
      expect((await registry.ticket(tokenIds[1])).checkedIn).to.equal(false);
    });
  });

  describe("invalidated", () => {
    it("sets the invalid flag and refuses checked-in, already invalid and unknown tickets", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      await execute([{ action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n }]);
      const tx = await execute([
        { action: "invalidated", tokenId: tokenIds[0], orderTime: 2n },
        { action: "invalidated", tokenId: tokenIds[1], orderTime: 3n },
        { action: "invalidated", tokenId: tokenIds[1], orderTime: 4n },
        { action: "invalidated", tokenId: tokenIdOf(1n, 77n), orderTime: 5n },
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: tokenIds[0], reason: Failure.TicketCheckedIn },
        { index: 2, subject: tokenIds[1], reason: Failure.TicketInvalidated },
        { index: 3, subject: tokenIdOf(1n, 77n), reason: Failure.TicketUnknown },
      ]);
      const records = (await registryLogs(registry, tx)).filter((log) => log.name === "TicketsInvalidated");
      expect(decodeRecords(records[0].args.records)).to.deep.equal([{ tokenId: tokenIds[1], orderTime: 3n }]);
      expect((await registry.ticket(tokenIds[1])).invalidated).to.equal(true);
      expect((await registry.ticket(tokenIds[0])).invalidated).to.equal(false);
    });
  });

  describe("claimed", () => {
    it("withdraws a checked-in ticket to the wallet, from custody or from its resale holder", async () => {
      const { registry, execute, tokenIds, alice, bob } = await networkHelpers.loadFixture(fourTickets);
      const [fromCustody, fromHolder] = tokenIds;
      const custody = await registry.custodyAddress(1n);
      const holder = await registry.holderAddress(fromHolder, 1);
      await execute([
        { action: "resold", tokenId: fromHolder, price: "10", orderTime: 1n },
        { action: "checkedIn", tokenId: fromCustody, orderTime: 2n },
        { action: "checkedIn", tokenId: fromHolder, orderTime: 2n },
      ]);
      const tx = execute([
        { action: "claimed", tokenId: fromCustody, to: alice.address },
        { action: "claimed", tokenId: fromHolder, to: bob.address },
      ]);
      await expect(tx).to.emit(registry, "Transfer").withArgs(custody, alice.address, fromCustody);
      await expect(tx).to.emit(registry, "Transfer").withArgs(holder, bob.address, fromHolder);
      expect(await registry.ownerOf(fromCustody)).to.equal(alice.address);
      expect(await registry.ownerOf(fromHolder)).to.equal(bob.address);
      expect(await registry.balanceOf(alice.address)).to.equal(1n);
      expect(await registry.balanceOf(holder)).to.equal(0n);
      expect(await registry.balanceOf(custody)).to.equal(2n);
      expect((await registry.ticket(fromCustody)).claimed).to.equal(true);
    });

    it("refuses tickets not checked in, invalidated or already claimed, and keyless or empty receivers", async () => {
      const { registry, execute, tokenIds, alice } = await networkHelpers.loadFixture(fourTickets);
      const [notCheckedIn, invalidated, claimed, checkedIn] = tokenIds;
      await execute([
        { action: "invalidated", tokenId: invalidated, orderTime: 1n },
        { action: "checkedIn", tokenId: claimed, orderTime: 1n },
        { action: "claimed", tokenId: claimed, to: alice.address },
        { action: "checkedIn", tokenId: checkedIn, orderTime: 1n },
      ]);
      const claim = (tokenId: bigint, to: string) => ({ action: "claimed" as const, tokenId, to });
      const receivers = [ZeroAddress, await registry.custodyAddress(1n), await registry.holderAddress(checkedIn, 3), await registry.getAddress()];
      const tx = await execute([
        claim(notCheckedIn, alice.address),
        claim(invalidated, alice.address),
        claim(claimed, alice.address),
        claim(tokenIdOf(1n, 42n), alice.address),
        ...receivers.map((to) => claim(checkedIn, to)),
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([
        { index: 0, subject: notCheckedIn, reason: Failure.TicketNotCheckedIn },
        { index: 1, subject: invalidated, reason: Failure.TicketInvalidated },
        { index: 2, subject: claimed, reason: Failure.TicketClaimed },
        { index: 3, subject: tokenIdOf(1n, 42n), reason: Failure.TicketUnknown },
        ...receivers.map((_, i) => ({ index: 4 + i, subject: checkedIn, reason: Failure.InvalidReceiver })),
      ]);
      expect(await registry.ownerOf(checkedIn)).to.equal(await registry.custodyAddress(1n));
    });

    it("leaves a claimed ticket scannable again but out of the operators' reach", async () => {
      const { registry, execute, tokenIds, alice } = await networkHelpers.loadFixture(fourTickets);
      await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n },
        { action: "claimed", tokenId: tokenIds[0], to: alice.address },
      ]);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 2n },
        { action: "invalidated", tokenId: tokenIds[0], orderTime: 2n },
        { action: "resold", tokenId: tokenIds[0], price: "1", orderTime: 2n },
      ]);
      expect((await itemFailures(registry, tx)).map((f) => f.reason)).to.deep.equal([Failure.TicketCheckedIn, Failure.TicketClaimed]);
      expect(await registry.ownerOf(tokenIds[0])).to.equal(alice.address);
    });
  });

  describe("batches", () => {
    it("applies a mixed batch in the order given and reports only the bad item", async () => {
      const { registry, execute, alice } = await networkHelpers.loadFixture(deployRegistryFixture);
      const tokenId = tokenIdOf(1n, 1n);
      const custody = await registry.custodyAddress(1n);
      const tx = await execute([
        registerEventItem(1n, "event-1"),
        soldItem(tokenId, "t1"),
        { action: "checkedIn", tokenId, orderTime: 10n },
        { action: "invalidated", tokenId, orderTime: 11n },
        { action: "claimed", tokenId, to: alice.address },
      ]);
      const logs = await registryLogs(registry, tx);
      expect(logs.map((log) => log.name)).to.deep.equal([
        "EventRegistered",
        "Transfer",
        "TicketSold",
        "TicketsCheckedIn",
        "ItemFailed",
        "Transfer",
        "BatchMetadataUpdate",
      ]);
      expect(await itemFailures(registry, tx)).to.deep.equal([{ index: 3, subject: tokenId, reason: Failure.TicketCheckedIn }]);
      expect(logs[5].args.toArray()).to.deep.equal([custody, alice.address, tokenId]);
      const view = await registry.ticket(tokenId);
      expect([view.checkedIn, view.invalidated, view.claimed]).to.deep.equal([true, false, true]);
    });

    it("keeps separate record runs in order when check-ins are interrupted", async () => {
      const { registry, execute, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const tx = await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n },
        { action: "invalidated", tokenId: tokenIds[1], orderTime: 2n },
        { action: "invalidated", tokenId: tokenIds[2], orderTime: 3n },
        { action: "checkedIn", tokenId: tokenIds[3], orderTime: 4n },
      ]);
      const logs = (await registryLogs(registry, tx)).filter((log) => log.name !== "BatchMetadataUpdate");
      expect(logs.map((log) => [log.name, decodeRecords(log.args.records).map((r) => r.tokenId)])).to.deep.equal([
        ["TicketsCheckedIn", [tokenIds[0]]],
        ["TicketsInvalidated", [tokenIds[1], tokenIds[2]]],
        ["TicketsCheckedIn", [tokenIds[3]]],
      ]);
    });

    it("reverts a malformed batch as a whole", async () => {
      const { registry, asOperator, tokenIds } = await networkHelpers.loadFixture(fourTickets);
      const scan = encodeBatch([{ action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n }]);
      await expect(asOperator.execute(scan.slice(0, -2)))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(0n);
      await expect(asOperator.execute(scan + "0b"))
        .to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch")
        .withArgs(25n);
      const register = encodeBatch([registerEventItem(2n, "e2")]);
      await expect(asOperator.execute(register.slice(0, -4))).to.be.revertedWithCustomError(registry, "TicketRegistryMalformedBatch");
      expect((await registry.ticket(tokenIds[0])).checkedIn).to.equal(false);
    });

    it("accepts an empty batch", async () => {
      const { asOperator } = await networkHelpers.loadFixture(deployRegistryFixture);
      await expect(asOperator.execute("0x")).not.to.revert(ethers);
    });
  });

  describe("custody", () => {
    it("refuses transfers and approvals of tokens in custody", async () => {
      const { registry, execute, tokenIds, operator, alice } = await networkHelpers.loadFixture(fourTickets);
      await execute([{ action: "resold", tokenId: tokenIds[1], price: "1", orderTime: 1n }]);
      const custody = await registry.custodyAddress(1n);
      const holder = await registry.holderAddress(tokenIds[1], 1);
      for (const signer of [operator, alice]) {
        await expect(registry.connect(signer).transferFrom(custody, alice.address, tokenIds[0]))
          .to.be.revertedWithCustomError(registry, "TicketRegistryTicketInCustody")
          .withArgs(tokenIds[0]);
        await expect(registry.connect(signer)["safeTransferFrom(address,address,uint256)"](holder, alice.address, tokenIds[1])).to.be.revertedWithCustomError(
          registry,
          "TicketRegistryTicketInCustody",
        );
        await expect(registry.connect(signer).approve(alice.address, tokenIds[0])).to.be.revertedWithCustomError(registry, "TicketRegistryTicketInCustody");
      }
      expect(await registry.isApprovedForAll(custody, operator.address)).to.equal(false);
    });

    it("refuses wallet transfers into custodial addresses", async () => {
      const { registry, execute, tokenIds, alice } = await networkHelpers.loadFixture(fourTickets);
      await execute([
        { action: "checkedIn", tokenId: tokenIds[0], orderTime: 1n },
        { action: "claimed", tokenId: tokenIds[0], to: alice.address },
      ]);
      const custody = await registry.custodyAddress(1n);
      await expect(registry.connect(alice).transferFrom(alice.address, custody, tokenIds[0]))
        .to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver")
        .withArgs(custody);
    });

    it("tells custodial addresses from wallets", async () => {
      const { registry, tokenIds, alice } = await networkHelpers.loadFixture(fourTickets);
      expect(await registry.isCustodial(await registry.custodyAddress(1n))).to.equal(true);
      expect(await registry.isCustodial(await registry.holderAddress(tokenIds[0], 5))).to.equal(true);
      expect(await registry.isCustodial(await registry.custodyAddress(2n))).to.equal(false);
      expect(await registry.isCustodial(alice.address)).to.equal(false);
      expect(await registry.balanceOf(alice.address)).to.equal(0n);
    });
  });

  describe("ERC-721", () => {
    async function claimedByAlice(connection: NetworkConnection) {
      const base = await registryWithTicketsFixture(connection, 2);
      await base.execute([
        { action: "checkedIn", tokenId: base.tokenIds[0], orderTime: 1n },
        { action: "claimed", tokenId: base.tokenIds[0], to: base.alice.address },
      ]);
      return { ...base, tokenId: base.tokenIds[0] };
    }

    it("transfers a claimed token like any ERC-721 token", async () => {
      const { registry, tokenId, alice, bob } = await networkHelpers.loadFixture(claimedByAlice);
      await expect(registry.connect(alice).transferFrom(alice.address, bob.address, tokenId))
        .to.emit(registry, "Transfer")
        .withArgs(alice.address, bob.address, tokenId);
      expect(await registry.ownerOf(tokenId)).to.equal(bob.address);
      expect(await registry.balanceOf(alice.address)).to.equal(0n);
      expect(await registry.balanceOf(bob.address)).to.equal(1n);
    });

    it("lets an approved account transfer once and clears the approval", async () => {
      const { registry, tokenId, alice, bob, outsider } = await networkHelpers.loadFixture(claimedByAlice);
      await expect(registry.connect(bob).transferFrom(alice.address, bob.address, tokenId))
        .to.be.revertedWithCustomError(registry, "ERC721InsufficientApproval")
        .withArgs(bob.address, tokenId);
      await expect(registry.connect(alice).approve(bob.address, tokenId)).to.emit(registry, "Approval").withArgs(alice.address, bob.address, tokenId);
      expect(await registry.getApproved(tokenId)).to.equal(bob.address);
      await registry.connect(bob).transferFrom(alice.address, outsider.address, tokenId);
      expect(await registry.getApproved(tokenId)).to.equal(ZeroAddress);
      await expect(registry.connect(bob).transferFrom(outsider.address, bob.address, tokenId)).to.be.revertedWithCustomError(
        registry,
        "ERC721InsufficientApproval",
      );
    });

    it("lets an operator approved for all transfer and approve", async () => {
      const { registry, tokenId, alice, bob, outsider } = await networkHelpers.loadFixture(claimedByAlice);
      await expect(registry.connect(alice).setApprovalForAll(bob.address, true)).to.emit(registry, "ApprovalForAll").withArgs(alice.address, bob.address, true);
      await registry.connect(bob).approve(outsider.address, tokenId);
      expect(await registry.getApproved(tokenId)).to.equal(outsider.address);
      await registry.connect(bob).transferFrom(alice.address, bob.address, tokenId);
      expect(await registry.ownerOf(tokenId)).to.equal(bob.address);
      await expect(registry.connect(alice).setApprovalForAll(ZeroAddress, true)).to.be.revertedWithCustomError(registry, "ERC721InvalidOperator");
    });

    it("refuses wrong owners, zero receivers and strangers' approvals", async () => {
      const { registry, tokenId, alice, bob } = await networkHelpers.loadFixture(claimedByAlice);
      await expect(registry.connect(alice).transferFrom(bob.address, alice.address, tokenId))
        .to.be.revertedWithCustomError(registry, "ERC721IncorrectOwner")
        .withArgs(bob.address, tokenId, alice.address);
      await expect(registry.connect(alice).transferFrom(alice.address, ZeroAddress, tokenId))
        .to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver")
        .withArgs(ZeroAddress);
      await expect(registry.connect(bob).approve(bob.address, tokenId)).to.be.revertedWithCustomError(registry, "ERC721InvalidApprover").withArgs(bob.address);
      await expect(registry.balanceOf(ZeroAddress)).to.be.revertedWithCustomError(registry, "ERC721InvalidOwner").withArgs(ZeroAddress);
    });

    it("checks receivers of safe transfers", async () => {
      const { registry, tokenId, alice } = await networkHelpers.loadFixture(claimedByAlice);
      const factory = await ethers.getContractFactory("ERC721ReceiverMock");
      const rejecting = await factory.deploy(false);
      const accepting = await factory.deploy(true);
      const safeTransfer = registry.connect(alice)["safeTransferFrom(address,address,uint256,bytes)"];
      await expect(safeTransfer(alice.address, await rejecting.getAddress(), tokenId, "0x"))
        .to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver")
        .withArgs(await rejecting.getAddress());
      await expect(safeTransfer(alice.address, await accepting.getAddress(), tokenId, "0x1234"))
        .to.emit(accepting, "Received")
        .withArgs(alice.address, alice.address, tokenId, "0x1234");
      expect(await registry.ownerOf(tokenId)).to.equal(await accepting.getAddress());
    });

    it("serves token URIs from the base URI and announces base URI changes", async () => {
      const { registry, admin, tokenId } = await networkHelpers.loadFixture(claimedByAlice);
      expect(await registry.name()).to.equal("Ticket Registry");
      expect(await registry.symbol()).to.equal("TICKET");
      expect(await registry.tokenURI(tokenId)).to.equal(`https://tickets.example.com/tokens/${tokenId}`);
      const tx = registry.connect(admin).setBaseURI("ipfs://base/");
      await expect(tx).to.emit(registry, "BaseURIChanged").withArgs("ipfs://base/");
      await expect(tx).to.emit(registry, "BatchMetadataUpdate").withArgs(0n, ethers.MaxUint256);
      expect(await registry.tokenURI(tokenId)).to.equal(`ipfs://base/${tokenId}`);
      expect(await registry.baseURI()).to.equal("ipfs://base/");
      await registry.connect(admin).setBaseURI("");
      expect(await registry.tokenURI(tokenId)).to.equal("");
      await expect(registry.tokenURI(tokenIdOf(1n, 99n))).to.be.revertedWithCustomError(registry, "ERC721NonexistentToken");
      await expect(registry.ownerOf(1n << 200n)).to.be.revertedWithCustomError(registry, "ERC721NonexistentToken");
    });

    it("declares its interfaces through ERC-165", async () => {
      const { registry } = await networkHelpers.loadFixture(deployRegistryFixture);
      for (const id of ["0x01ffc9a7", "0x80ac58cd", "0x5b5e139f", "0x49064906", "0x7965db0b"]) {
        expect(await registry.supportsInterface(id), id).to.equal(true);
      }
      for (const id of ["0xffffffff", "0x780e9d63"]) {
        expect(await registry.supportsInterface(id), id).to.equal(false);
      }
    });
  });
});
