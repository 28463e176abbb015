import { expect } from "chai";
import { AbiCoder, getAddress, keccak256, toBeHex } from "ethers";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { RegistryItemFailure as Failure, tokenIdOf, type RegistryBatchItem } from "../scripts/registry.js";
import { itemFailures } from "./support/logs.js";
import { deployRegistryFixture, registerEventItem, soldItem } from "./support/registry-fixture.js";

const { ethers, networkHelpers } = await network.create();

/**
 * The per-ticket state TicketFlags lays out, observed through the registry's views: four flag bits per
 * ticket, 64 tickets per word (word key tokenId >> 6), and a 32-bit resale counter, 8 tickets per word
 * (word key tokenId >> 3). Every ticket of a word gets a different state, so a wrong width, position or
 * mask shows up as a neighbour's state.
 */

const EVENT = 1n;
/** Serials 64..127 of event 1 fill one flag word exactly, and eight resale words. */
const FIRST_SERIAL = 64n;
const WORD_TICKETS = 64;

type Expected = { checkedIn: boolean; invalidated: boolean; claimed: boolean; resales: number };

/** Ticket i of the word: states cycle through 4 flag combinations and, independently, 0..2 resales. */
function expectedState(i: number): Expected {
  const flags = i % 4;
  return { checkedIn: flags === 1 || flags === 3, invalidated: flags === 2, claimed: flags === 3, resales: i % 3 };
}

async function fullFlagWord(connection: NetworkConnection) {
  const base = await deployRegistryFixture(connection);
  const tokenIds = Array.from({ length: WORD_TICKETS }, (_, i) => tokenIdOf(EVENT, FIRST_SERIAL + BigInt(i)));
  await base.execute([registerEventItem(EVENT, "packed"), ...tokenIds.map((tokenId, i) => soldItem(tokenId, `packed-${i}`))]);

  const resales: RegistryBatchItem[] = tokenIds.flatMap((tokenId, i) =>
    Array.from({ length: expectedState(i).resales }, (_, k) => ({ action: "resold" as const, tokenId, price: "1", orderTime: BigInt(k + 1) })),
  );
  const flags: RegistryBatchItem[] = tokenIds.flatMap((tokenId, i): RegistryBatchItem[] => {
    const state = expectedState(i);
    if (state.invalidated) return [{ action: "invalidated", tokenId, orderTime: 10n }];
    if (!state.checkedIn) return [];
    const checkIn: RegistryBatchItem = { action: "checkedIn", tokenId, orderTime: 10n };
    return state.claimed ? [checkIn, { action: "claimed", tokenId, to: base.alice.address }] : [checkIn];
  });
  const tx = await base.execute([...resales, ...flags]);
  expect(await itemFailures(base.registry, tx)).to.deep.equal([]);
  return { ...base, tokenIds };
}

describe("TicketRegistry packed ticket state (TicketFlags)", () => {
  it("keeps the flags and resale count of each of the 64 tickets of a flag word apart", async () => {
    const { registry, tokenIds, alice } = await networkHelpers.loadFixture(fullFlagWord);
    expect(new Set(tokenIds.map((tokenId) => tokenId >> 6n)).size, "one flag word").to.equal(1);
    expect(new Set(tokenIds.map((tokenId) => tokenId >> 3n)).size, "eight resale words").to.equal(8);

    for (const [i, tokenId] of tokenIds.entries()) {
      const expected = expectedState(i);
      const view = await registry.ticket(tokenId);
      const actual = { checkedIn: view.checkedIn, invalidated: view.invalidated, claimed: view.claimed, resales: Number(view.resales) };
      expect(actual, `ticket ${i} of the word`).to.deep.equal(expected);
      const holder = expected.claimed ? alice.address : await registry.holderAddress(tokenId, expected.resales);
      expect(await registry.ownerOf(tokenId), `owner of ticket ${i}`).to.equal(holder);
    }
  });

  it("counts custodial balances from the custody counters and the resale counters", async () => {
    const { registry, tokenIds, alice } = await networkHelpers.loadFixture(fullFlagWord);
    const states = tokenIds.map((_, i) => expectedState(i));
    const inCustody = states.filter((state) => state.resales === 0 && !state.claimed).length;
    const custody = await registry.custodyAddress(EVENT);

    const record = await registry.eventRecord(EVENT);
    expect(record.ticketsSold).to.equal(BigInt(WORD_TICKETS));
    expect(record.ticketsInCustody).to.equal(BigInt(inCustody));
    expect(await registry.balanceOf(custody)).to.equal(BigInt(inCustody));
    expect(await registry.balanceOf(alice.address)).to.equal(BigInt(states.filter((state) => state.claimed).length));
    for (const [i, tokenId] of tokenIds.entries()) {
      const { resales, claimed } = states[i];
      for (let k = 1; k <= 3; k++) {
        const held = !claimed && k === resales ? 1n : 0n;
        expect(await registry.balanceOf(await registry.holderAddress(tokenId, k)), `holder ${k} of ticket ${i}`).to.equal(held);
      }
    }
  });

  it("keeps neighbours on either side of a word boundary apart", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
    const [last7, first8, last63, first64] = [7n, 8n, 63n, 64n].map((serial) => tokenIdOf(EVENT, serial));
    expect(last7 >> 3n).to.not.equal(first8 >> 3n);
    expect(last63 >> 6n).to.not.equal(first64 >> 6n);
    await execute([registerEventItem(EVENT, "edges"), ...[last7, first8, last63, first64].map((tokenId) => soldItem(tokenId, `edge-${tokenId}`))]);
    await execute([
      { action: "resold", tokenId: first8, price: "1", orderTime: 1n },
      { action: "checkedIn", tokenId: last63, orderTime: 1n },
      { action: "invalidated", tokenId: first64, orderTime: 1n },
    ]);
    const state = async (tokenId: bigint) => {
      const view = await registry.ticket(tokenId);
      return [view.checkedIn, view.invalidated, view.claimed, Number(view.resales)];
    };
    expect(await state(last7)).to.deep.equal([false, false, false, 0]);
    expect(await state(first8)).to.deep.equal([false, false, false, 1]);
    expect(await state(last63)).to.deep.equal([true, false, false, 0]);
    expect(await state(first64)).to.deep.equal([false, true, false, 0]);
  });

  it("keeps sales of one run apart across events and flag words, and counts each event's", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
    await execute([registerEventItem(EVENT, "run-1"), registerEventItem(2n, "run-2")]);
    const [s62, s63, s64, s65] = [62n, 63n, 64n, 65n].map((serial) => tokenIdOf(EVENT, serial));
    const other = tokenIdOf(2n, 1n);
    // One run of sales: a word boundary, another event and back, a repeat of a ticket sold earlier in the
    // run (held in memory, not yet stored), an unknown event in between.
    const tx = await execute([
      soldItem(s62, "a"),
      soldItem(s63, "b"),
      soldItem(s64, "c"),
      soldItem(other, "d"),
      soldItem(s65, "e"),
      soldItem(s63, "b-again"),
      soldItem(tokenIdOf(3n, 1n), "unknown"),
      soldItem(s62, "a-again"),
    ]);
    expect(await itemFailures(registry, tx)).to.deep.equal([
      { index: 5, subject: s63, reason: Failure.TicketExists },
      { index: 6, subject: tokenIdOf(3n, 1n), reason: Failure.EventUnknown },
      { index: 7, subject: s62, reason: Failure.TicketExists },
    ]);
    expect((await registry.eventRecord(EVENT)).ticketsSold).to.equal(4n);
    expect((await registry.eventRecord(2n)).ticketsSold).to.equal(1n);
    expect(await registry.balanceOf(await registry.custodyAddress(EVENT))).to.equal(4n);
    expect(await registry.balanceOf(await registry.custodyAddress(2n))).to.equal(1n);
    for (const tokenId of [s62, s63, s64, s65]) expect(await registry.ownerOf(tokenId)).to.equal(await registry.custodyAddress(EVENT));
    // Stored, not only logged: a later batch sees every one of them minted.
    const again = await execute([s62, s63, s64, s65, other].map((tokenId) => soldItem(tokenId, `later-${tokenId}`)));
    expect((await itemFailures(registry, again)).map((failure) => failure.reason)).to.deep.equal(Array(5).fill(Failure.TicketExists));
  });

  it("keeps the flags a run of check-ins or invalidations set when it leaves a flag word and comes back", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
    const [s62, s63, s64, s65] = [62n, 63n, 64n, 65n].map((serial) => tokenIdOf(EVENT, serial));
    await execute([registerEventItem(EVENT, "records"), ...[s62, s63, s64, s65].map((tokenId) => soldItem(tokenId, `r-${tokenId}`))]);
    const checkIns = await execute([
      { action: "checkedIn", tokenId: s62, orderTime: 1n },
      { action: "checkedIn", tokenId: s64, orderTime: 2n },
      { action: "checkedIn", tokenId: s62, orderTime: 3n },
    ]);
    expect(await itemFailures(registry, checkIns)).to.deep.equal([]);
    const invalidations = await execute([
      { action: "invalidated", tokenId: s63, orderTime: 4n },
      { action: "invalidated", tokenId: s65, orderTime: 5n },
      { action: "invalidated", tokenId: s62, orderTime: 6n },
      { action: "invalidated", tokenId: s63, orderTime: 7n },
    ]);
    expect(await itemFailures(registry, invalidations)).to.deep.equal([
      { index: 2, subject: s62, reason: Failure.TicketCheckedIn },
      { index: 3, subject: s63, reason: Failure.TicketInvalidated },
    ]);
    const state = async (tokenId: bigint) => {
      const view = await registry.ticket(tokenId);
      return [view.checkedIn, view.invalidated];
    };
    expect(await Promise.all([s62, s63, s64, s65].map(state))).to.deep.equal([
      [true, false],
      [false, true],
      [true, false],
      [false, true],
    ]);
  });

  it("derives custodial addresses from the documented mask, so that they can be computed off chain", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(deployRegistryFixture);
    await execute([registerEventItem(EVENT, "addresses")]);
    const { chainId } = await ethers.provider.getNetwork();
    const encoded = AbiCoder.defaultAbiCoder().encode(["uint256", "address", "string"], [chainId, await registry.getAddress(), "TicketRegistry.custody"]);
    const mask = BigInt(keccak256(encoded)) & ((1n << 160n) - 1n);
    const custodial = (eventIndex: bigint, serial: bigint, resales: bigint) =>
      getAddress(toBeHex(((eventIndex << 96n) | (serial << 32n) | resales) ^ mask, 20));

    expect(await registry.custodyAddress(EVENT)).to.equal(custodial(EVENT, 0n, 0n));
    const tokenId = tokenIdOf(EVENT, 5n);
    expect(await registry.holderAddress(tokenId, 0)).to.equal(custodial(EVENT, 0n, 0n));
    expect(await registry.holderAddress(tokenId, 3)).to.equal(custodial(EVENT, 5n, 3n));
    expect(await registry.holderAddress(tokenId, 0xffffffffn)).to.equal(custodial(EVENT, 5n, 0xffffffffn));
    expect(await registry.isCustodial(custodial(EVENT, 5n, 3n))).to.equal(true);
    expect(await registry.isCustodial(custodial(EVENT, 5n, 0n)), "a serial without resales names no address").to.equal(false);
    expect(await registry.isCustodial(custodial(EVENT, 0n, 3n)), "resales without a serial name no address").to.equal(false);
  });
});
