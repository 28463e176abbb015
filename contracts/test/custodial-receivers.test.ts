import { expect } from "chai";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { RegistryItemFailure as Failure, tokenIdOf } from "../scripts/registry.js";
import { itemFailures } from "./support/logs.js";
import { registerEventItem, registryWithTicketsFixture, soldItem } from "./support/registry-fixture.js";

const { networkHelpers } = await network.create();

const MAX_EVENT_INDEX = (1n << 40n) - 1n;

/** Event 1 with four tickets sold, the first checked in and claimed by alice. */
async function claimedByAlice(connection: NetworkConnection) {
  const base = await registryWithTicketsFixture(connection, 4);
  const tokenId = base.tokenIds[0];
  await base.execute([
    { action: "checkedIn", tokenId, orderTime: 1n },
    { action: "claimed", tokenId, to: base.alice.address },
  ]);
  return { ...base, tokenId };
}

/**
 * ICustodialERC721 promises that no ERC-721 transfer sends a token back into custody. Custody and holder
 * addresses of events not registered yet are public (custodyAddress, holderAddress): a token sent to one
 * would later be counted among that event's custodial tokens and named as a custodial owner.
 */
describe("TicketRegistry receivers: a claimed token never lands in custody", () => {
  it("refuses the custody address of an event not registered yet, and stays consistent once it is", async () => {
    const { registry, execute, tokenId, alice } = await networkHelpers.loadFixture(claimedByAlice);
    const custody = await registry.custodyAddress(2n);
    await expect(registry.connect(alice).transferFrom(alice.address, custody, tokenId))
      .to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver")
      .withArgs(custody);

    await execute([registerEventItem(2n, "event-2"), soldItem(tokenIdOf(2n, 1n), "later")]);
    expect(await registry.balanceOf(custody)).to.equal(1n);
    expect((await registry.eventRecord(2n)).ticketsInCustody).to.equal(1n);
    expect(await registry.ownerOf(tokenId)).to.equal(alice.address);
  });

  it("refuses the custody address of every event index the registry can have, 0 and 2^40 - 1 included", async () => {
    const { registry, tokenId, alice } = await networkHelpers.loadFixture(claimedByAlice);
    for (const eventIndex of [0n, 1n, 3n, 123_456_789n, MAX_EVENT_INDEX]) {
      const custody = await registry.custodyAddress(eventIndex);
      await expect(registry.connect(alice).transferFrom(alice.address, custody, tokenId), `event index ${eventIndex}`)
        .to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver")
        .withArgs(custody);
    }
  });

  it("refuses holder addresses of resales that have not happened, of any ticket of any event", async () => {
    const { registry, tokenIds, tokenId, alice } = await networkHelpers.loadFixture(claimedByAlice);
    const safeTransfer = registry.connect(alice)["safeTransferFrom(address,address,uint256)"];
    for (const holder of [
      await registry.holderAddress(tokenIds[1], 1),
      await registry.holderAddress(tokenIds[2], 4_000_000_000),
      await registry.holderAddress(tokenIdOf(7n, 1n), 1),
      await registry.holderAddress(tokenIdOf(MAX_EVENT_INDEX, (1n << 64n) - 1n), 1),
    ]) {
      await expect(registry.connect(alice).transferFrom(alice.address, holder, tokenId)).to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver");
      await expect(safeTransfer(alice.address, holder, tokenId)).to.be.revertedWithCustomError(registry, "ERC721InvalidReceiver");
    }
    expect(await registry.ownerOf(tokenId)).to.equal(alice.address);
    expect(await registry.balanceOf(alice.address)).to.equal(1n);
  });

  it("refuses the same receivers for a claim, as an item failure", async () => {
    const { registry, execute, tokenIds } = await networkHelpers.loadFixture(claimedByAlice);
    const futureCustody = await registry.custodyAddress(5n);
    const futureHolder = await registry.holderAddress(tokenIds[3], 2);
    await execute([
      { action: "checkedIn", tokenId: tokenIds[1], orderTime: 1n },
      { action: "checkedIn", tokenId: tokenIds[2], orderTime: 1n },
    ]);
    const tx = await execute([
      { action: "claimed", tokenId: tokenIds[1], to: futureCustody },
      { action: "claimed", tokenId: tokenIds[2], to: futureHolder },
    ]);
    expect(await itemFailures(registry, tx)).to.deep.equal([
      { index: 0, subject: tokenIds[1], reason: Failure.InvalidReceiver },
      { index: 1, subject: tokenIds[2], reason: Failure.InvalidReceiver },
    ]);
    expect(await registry.ownerOf(tokenIds[1])).to.equal(await registry.custodyAddress(1n));
  });

  it("takes an address just outside the custodial space as a wallet", async () => {
    const { registry, tokenId, alice } = await networkHelpers.loadFixture(claimedByAlice);
    // The address scheme's index 2^40: its top 24 bits differ from every custodial address's.
    const outside = await registry.custodyAddress(MAX_EVENT_INDEX + 1n);
    await registry.connect(alice).transferFrom(alice.address, outside, tokenId);
    expect(await registry.ownerOf(tokenId)).to.equal(outside);
    expect(await registry.balanceOf(outside)).to.equal(1n);
    expect(await registry.isCustodial(outside)).to.equal(false);
  });
});
