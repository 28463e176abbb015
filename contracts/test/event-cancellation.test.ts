import { expect } from "chai";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";

import { eventKeyOf, RegistryItemFailure as Failure, type RegistryBatchItem, tokenIdOf } from "../scripts/registry.js";
import { isolated } from "../scripts/gas/measure-gas.js";
import { itemFailures, registryLogs } from "./support/logs.js";
import { deployRegistryFixture, registerEventItem, soldItem, TICKETEER_ID } from "./support/registry-fixture.js";

const connection = await network.create();
const { networkHelpers } = connection;

const LAST_SERIAL = (1n << 64n) - 1n;
const cancel = (eventIndex: bigint): RegistryBatchItem => ({ action: "cancelEvent", eventIndex });
const checkIn = (tokenId: bigint): RegistryBatchItem => ({ action: "checkedIn", tokenId, orderTime: 1n });

/**
 * Event 1 with eight tickets in every state a ticket can reach before a cancellation (on sale, resold, checked in,
 * invalidated, claimed), and event 2 with four tickets that the cancellation of event 1 leaves alone.
 */
async function twoEventsWithTickets(connection: NetworkConnection) {
  const base = await deployRegistryFixture(connection);
  const tokenIds = Array.from({ length: 8 }, (_, i) => tokenIdOf(1n, BigInt(i + 1)));
  const others = Array.from({ length: 4 }, (_, i) => tokenIdOf(2n, BigInt(i + 1)));
  await base.execute([
    registerEventItem(1n, "event-1"),
    registerEventItem(2n, "event-2"),
    ...tokenIds.map((tokenId, i) => soldItem(tokenId, `ticket-1-${i}`)),
    ...others.map((tokenId, i) => soldItem(tokenId, `ticket-2-${i}`)),
  ]);
  await base.execute([
    { action: "resold", tokenId: tokenIds[1], price: "30", orderTime: 2n },
    checkIn(tokenIds[2]),
    { action: "invalidated", tokenId: tokenIds[3], orderTime: 2n },
    checkIn(tokenIds[4]),
    { action: "claimed", tokenId: tokenIds[4], to: base.alice.address },
    checkIn(others[0]),
  ]);
  return { ...base, tokenIds, others };
}

async function cancelledEvent(connection: NetworkConnection) {
  const base = await twoEventsWithTickets(connection);
  await base.execute([cancel(1n)]);
  return base;
}

describe("TicketRegistry event cancellation", () => {
  it("cancels an event in one item: one event-level log and one ERC-4906 signal over every token it can have", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(twoEventsWithTickets);
    const logs = await registryLogs(registry, await execute([cancel(1n)]));
    expect(logs.map((log) => log.name)).to.deep.equal(["EventCancelled", "BatchMetadataUpdate"]);
    expect([...logs[0].args]).to.deep.equal([1n, eventKeyOf(TICKETEER_ID, "event-1")]);
    expect([...logs[1].args]).to.deep.equal([tokenIdOf(1n, 1n), tokenIdOf(1n, LAST_SERIAL)]);
  });

  it("shows every ticket of the event as cancelled in the tickets view, and the event as cancelled", async () => {
    const { registry, tokenIds, others, alice } = await networkHelpers.loadFixture(cancelledEvent);
    const views = await registry.tickets([...tokenIds, ...others]);
    expect(views.map((view) => view.eventCancelled)).to.deep.equal([...tokenIds.map(() => true), ...others.map(() => false)]);
    // The ticket's own state stays as it was: the cancellation is the event's, read beside it.
    expect(
      views.slice(0, 5).map(({ checkedIn, invalidated, claimed, resales }) => ({ checkedIn, invalidated, claimed, resales: Number(resales) })),
    ).to.deep.equal([
      { checkedIn: false, invalidated: false, claimed: false, resales: 0 },
      { checkedIn: false, invalidated: false, claimed: false, resales: 1 },
      { checkedIn: true, invalidated: false, claimed: false, resales: 0 },
      { checkedIn: false, invalidated: true, claimed: false, resales: 0 },
      { checkedIn: true, invalidated: false, claimed: true, resales: 0 },
    ]);
    expect((await registry.ticket(tokenIds[0])).eventCancelled).to.equal(true);
    expect(await registry.ownerOf(tokenIds[4])).to.equal(alice.address);
    expect((await registry.eventRecord(1n)).cancelled).to.equal(true);
    expect((await registry.eventRecord(2n)).cancelled).to.equal(false);
    expect((await registry.eventRecord(1n)).ticketsSold).to.equal(8n);
  });

  it("refuses an unknown event and an event already cancelled", async () => {
    const { registry, execute } = await networkHelpers.loadFixture(cancelledEvent);
    const tx = await execute([cancel(1n), cancel(9n)]);
    expect(await itemFailures(registry, tx)).to.deep.equal([
      { index: 0, subject: 1n, reason: Failure.EventCancelled },
      { index: 1, subject: 9n, reason: Failure.EventUnknown },
    ]);
    expect((await registryLogs(registry, tx)).filter((log) => log.name !== "ItemFailed")).to.deep.equal([]);
  });

  it("refuses every later sale, resale, check-in, invalidation and claim of the event's tickets", async () => {
    const { registry, execute, tokenIds, others, bob } = await networkHelpers.loadFixture(cancelledEvent);
    const items: RegistryBatchItem[] = [
      soldItem(tokenIdOf(1n, 9n), "ticket-1-late"),
      { action: "resold", tokenId: tokenIds[0], price: "30", orderTime: 3n },
      checkIn(tokenIds[0]),
      checkIn(tokenIds[2]),
      { action: "invalidated", tokenId: tokenIds[5], orderTime: 3n },
      { action: "claimed", tokenId: tokenIds[2], to: bob.address },
      checkIn(others[1]),
    ];
    const tx = await execute(items);
    expect(await itemFailures(registry, tx)).to.deep.equal(
      [tokenIdOf(1n, 9n), tokenIds[0], tokenIds[0], tokenIds[2], tokenIds[5], tokenIds[2]].map((subject, index) => ({
        index,
        subject,
        reason: Failure.EventCancelled,
      })),
    );
    const [late, resold, scanned, claimable, other] = await registry.tickets([tokenIdOf(1n, 9n), tokenIds[0], tokenIds[0], tokenIds[2], others[1]]);
    expect(late.holder).to.equal("0x0000000000000000000000000000000000000000");
    expect([resold.resales, scanned.checkedIn, claimable.claimed, other.checkedIn]).to.deep.equal([0n, false, false, true]);
  });

  it("applies the items before the cancellation in its batch and refuses those after it, in the same flag word", async () => {
    const { registry, execute, tokenIds } = await networkHelpers.loadFixture(twoEventsWithTickets);
    const tx = await execute([checkIn(tokenIds[5]), cancel(1n), checkIn(tokenIds[6]), soldItem(tokenIdOf(1n, 9n), "ticket-1-late")]);
    expect(await itemFailures(registry, tx)).to.deep.equal([
      { index: 2, subject: tokenIds[6], reason: Failure.EventCancelled },
      { index: 3, subject: tokenIdOf(1n, 9n), reason: Failure.EventCancelled },
    ]);
    const [before, after] = await registry.tickets([tokenIds[5], tokenIds[6]]);
    expect([before.checkedIn, after.checkedIn]).to.deep.equal([true, false]);
  });

  it("refuses the cancelled event's items however they alternate with another event's", async () => {
    const { registry, execute, tokenIds, others } = await networkHelpers.loadFixture(cancelledEvent);
    const tx = await execute([checkIn(others[2]), checkIn(tokenIds[6]), checkIn(others[3]), checkIn(tokenIds[7])]);
    expect((await itemFailures(registry, tx)).map((failure) => failure.index)).to.deep.equal([1, 3]);
    const views = await registry.tickets([others[2], others[3], tokenIds[6], tokenIds[7]]);
    expect(views.map((view) => view.checkedIn)).to.deep.equal([true, true, false, false]);
  });

  it("leaves claimed tokens with their holders, who can still transfer and approve them", async () => {
    const { registry, tokenIds, alice, bob } = await networkHelpers.loadFixture(cancelledEvent);
    await registry.connect(alice).approve(bob.address, tokenIds[4]);
    await registry.connect(bob).transferFrom(alice.address, bob.address, tokenIds[4]);
    expect(await registry.ownerOf(tokenIds[4])).to.equal(bob.address);
    expect(await registry.balanceOf(bob.address)).to.equal(1n);
    expect((await registry.ticket(tokenIds[4])).eventCancelled).to.equal(true);
  });

  it("costs the same gas with one ticket sold as with a thousand", async function () {
    this.timeout(120_000);
    const { execute } = await networkHelpers.loadFixture(deployRegistryFixture);
    await execute([registerEventItem(1n, "event-1"), soldItem(tokenIdOf(1n, 1n), "ticket-0")]);
    const gasOfCancel = async () => Number((await (await execute([cancel(1n)])).wait())!.gasUsed);
    const withOne = await isolated(connection, gasOfCancel);
    for (let first = 2; first <= 1000; first += 100) {
      const serials = Array.from({ length: Math.min(100, 1001 - first) }, (_, i) => BigInt(first + i));
      await execute(serials.map((serial) => soldItem(tokenIdOf(1n, serial), `ticket-${serial}`)));
    }
    const withThousand = await gasOfCancel();
    expect(withThousand).to.equal(withOne);
  });
});
