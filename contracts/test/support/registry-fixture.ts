import { id } from "ethers";
import type { NetworkConnection } from "hardhat/types/network";

import {
  encodeBatch,
  eventKeyOf,
  ticketHashOf,
  ticketeerKeyOf,
  tokenIdOf,
  type RegistryBatchItem,
  type RegistryEventDetails,
  type RegistryWireItem,
} from "../../scripts/registry.js";

export const TICKETEER_ID = "ticketeer-1";

export const sampleDetails: RegistryEventDetails = {
  name: "Concert in the Park",
  currency: "EUR",
  shopUrl: "https://shop.example.com/concert",
  imageUrl: "https://img.example.com/concert.png",
  latitude: 52.3731,
  longitude: 4.8922,
  startTime: 1_900_000_000n,
  endTime: 1_900_010_800n,
  organizer: "Example Tickets B.V.",
  metadataHash: id("concert-metadata"),
};

export async function deployRegistryFixture({ ethers }: NetworkConnection) {
  const [admin, operator, outsider, alice, bob] = await ethers.getSigners();
  const registry = await ethers.deployContract("TicketRegistry", [
    admin.address,
    "Ticket Registry",
    "TICKET",
    "https://tickets.example.com/tokens/",
    "https://tickets.example.com/tokens/collection",
  ]);
  await registry.waitForDeployment();
  await registry.connect(admin).grantRole(await registry.OPERATOR_ROLE(), operator.address);
  const asOperator = registry.connect(operator);
  const execute = (items: RegistryWireItem[]) => asOperator.execute(encodeBatch(items));
  return { registry, asOperator, execute, admin, operator, outsider, alice, bob };
}

/** An event registered at index 1 with tickets 1..n sold (tokenIds returned in serial order). */
export async function registryWithTicketsFixture(connection: NetworkConnection, count = 4) {
  const base = await deployRegistryFixture(connection);
  const eventIndex = 1n;
  const tokenIds = Array.from({ length: count }, (_, i) => tokenIdOf(eventIndex, BigInt(i + 1)));
  await base.execute([registerEventItem(eventIndex, "event-1"), ...tokenIds.map((tokenId, i) => soldItem(tokenId, `ticket-${i + 1}`))]);
  return { ...base, eventIndex, tokenIds };
}

export function registerEventItem(eventIndex: bigint, eventId: string, details = sampleDetails): RegistryBatchItem {
  return {
    action: "registerEvent",
    eventIndex,
    eventKey: eventKeyOf(TICKETEER_ID, eventId),
    ticketeer: ticketeerKeyOf(TICKETEER_ID),
    details,
  };
}

export function soldItem(tokenId: bigint, ticketId: string, price = "25.00", orderTime = 1_800_000_000n): RegistryBatchItem {
  return { action: "sold", tokenId, ticketHash: ticketHashOf(ticketId), price, orderTime };
}
