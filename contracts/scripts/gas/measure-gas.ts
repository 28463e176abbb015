import { dataSlice, getAddress, id } from "ethers";
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
} from "../registry.js";
import { measureMetadataGas, type MetadataGas } from "./metadata-gas.js";
import type { TicketRegistry } from "../../types/index.js";

export const BATCH_SIZES = [1, 10, 100] as const;
export const TICKET_ACTIONS = ["sold", "resold", "scanned", "invalidated", "claimed"] as const;

/** Tickets sold in the event before it is cancelled: its cancellation must cost the same whatever their number. */
export const CANCELLED_EVENT_TICKETS = [1, 100, 5000] as const;

export type TicketAction = (typeof TICKET_ACTIONS)[number];
export type GasSnapshot = Record<TicketAction, Record<`${(typeof BATCH_SIZES)[number]}`, number>> &
  MetadataGas & {
    registerEvent: number;
    /** The gas of the transaction that cancels an event, by the number of its tickets sold. */
    cancelEvent: Record<`${(typeof CANCELLED_EVENT_TICKETS)[number]}`, number>;
  };

/** Targets per ticket at a batch of 100, for registering an event, and for cancelling one (the whole transaction). */
export const GAS_TARGETS: Record<TicketAction | "registerEvent" | "cancelEvent", number> = {
  sold: 8_000,
  resold: 55_000,
  scanned: 2_000,
  invalidated: 2_000,
  claimed: 55_000,
  registerEvent: 150_000,
  cancelEvent: 60_000,
};

/** The worst case the registry accepts: every string at its 255-character limit. */
const FULL_EVENT: RegistryEventDetails = {
  name: "N".repeat(255),
  currency: "EUR",
  shopUrl: "https://shop.example.com/" + "s".repeat(230),
  imageUrl: "https://img.example.com/" + "i".repeat(231),
  latitude: 52.3731,
  longitude: 4.8922,
  startTime: 1_900_000_000n,
  endTime: 1_900_010_800n,
  organizer: "O".repeat(255),
  metadataHash: id("event-metadata"),
};

const ORDER_TIME = 1_750_000_000n;
const EVENT_INDEX = 1n;

/**
 * Gas per ticket of each action: the batch transaction's gasUsed (21,000 base included) divided by
 * the number of tickets. The tickets of a batch are consecutive serials of one event, as a sale and
 * the later actions on its tickets are; claims go to distinct wallets that held nothing before.
 */
export async function measureGas(connection: NetworkConnection): Promise<GasSnapshot> {
  const registry = await deployForMeasuring(connection);
  const snapshot = {} as GasSnapshot;
  for (const action of TICKET_ACTIONS) {
    snapshot[action] = {} as GasSnapshot[TicketAction];
    for (const size of BATCH_SIZES) {
      snapshot[action][`${size}`] = await isolated(connection, () => gasPerTicket(registry, action, size));
    }
  }
  snapshot.registerEvent = await isolated(connection, () => gasUsed(registry, [registerEvent(EVENT_INDEX + 1n, "measured-event")]));
  snapshot.cancelEvent = await isolated(connection, () => gasOfCancellations(connection, registry));
  const metadata = await measureMetadataGas(
    connection,
    EVENT_INDEX,
    (items) => gasUsed(registry, items),
    (measure) => isolated(connection, measure),
    snapshot.sold["100"],
  );
  return { ...snapshot, ...metadata };
}

/**
 * The gas of cancelling the event after 1, 100 and 5,000 of its tickets were sold, from the same chain state but
 * for the sales: one write for the event, none per ticket, so the three are equal.
 */
async function gasOfCancellations(connection: NetworkConnection, registry: TicketRegistry): Promise<GasSnapshot["cancelEvent"]> {
  const figures = {} as GasSnapshot["cancelEvent"];
  let sold = 0;
  for (const tickets of CANCELLED_EVENT_TICKETS) {
    for (; sold < tickets; sold += 100) {
      const serials = Array.from({ length: Math.min(100, tickets - sold) }, (_, i) => BigInt(sold + i + 1));
      await gasUsed(
        registry,
        serials.map((serial) => soldItem(tokenIdOf(EVENT_INDEX, serial), Number(serial))),
      );
    }
    sold = tickets;
    figures[`${tickets}`] = await isolated(connection, () => gasUsed(registry, [{ action: "cancelEvent", eventIndex: EVENT_INDEX }]));
  }
  return figures;
}

function soldItem(tokenId: bigint, position: number): RegistryBatchItem {
  return { action: "sold", tokenId, ticketHash: ticketHashOf(`ticket-${position}`), price: "49.95", orderTime: ORDER_TIME };
}

async function deployForMeasuring({ ethers }: NetworkConnection): Promise<TicketRegistry> {
  const [admin] = await ethers.getSigners();
  const registry = await ethers.deployContract("TicketRegistry", [admin.address, "Ticket Registry", "TICKET", "", ""]);
  await registry.grantRole(await registry.OPERATOR_ROLE(), admin.address);
  await (await registry.execute(encodeBatch([registerEvent(EVENT_INDEX, "event")]))).wait();
  return registry;
}

async function gasPerTicket(registry: TicketRegistry, action: TicketAction, size: number): Promise<number> {
  const tokenIds = Array.from({ length: size }, (_, i) => tokenIdOf(EVENT_INDEX, BigInt(i + 1)));
  const sold = tokenIds.map((tokenId, i) => soldItem(tokenId, i));
  if (action === "sold") return Math.round((await gasUsed(registry, sold)) / size);
  await gasUsed(registry, sold);
  if (action === "claimed") {
    const checkIns = tokenIds.map((tokenId): RegistryBatchItem => ({ action: "checkedIn", tokenId, orderTime: ORDER_TIME }));
    await gasUsed(registry, checkIns);
  }
  const measured = tokenIds.map((tokenId, i) => actionItem(action, tokenId, i));
  return Math.round((await gasUsed(registry, measured)) / size);
}

function actionItem(action: Exclude<TicketAction, "sold">, tokenId: bigint, position: number): RegistryBatchItem {
  switch (action) {
    case "resold":
      return { action: "resold", tokenId, price: "55.00", orderTime: ORDER_TIME + 1n };
    case "scanned":
      return { action: "checkedIn", tokenId, orderTime: ORDER_TIME + 2n };
    case "invalidated":
      return { action: "invalidated", tokenId, orderTime: ORDER_TIME + 2n };
    case "claimed":
      return { action: "claimed", tokenId, to: claimant(position) };
  }
}

/** A distinct wallet per ticket, the same on every run so that calldata costs repeat exactly. */
function claimant(position: number): string {
  return getAddress(dataSlice(id(`claimant-${position}`), 12));
}

function registerEvent(eventIndex: bigint, eventId: string): RegistryBatchItem {
  return {
    action: "registerEvent",
    eventIndex,
    eventKey: eventKeyOf("ticketeer", eventId),
    ticketeer: ticketeerKeyOf("ticketeer"),
    details: FULL_EVENT,
  };
}

async function gasUsed(registry: TicketRegistry, items: RegistryWireItem[]): Promise<number> {
  const receipt = await (await registry.execute(encodeBatch(items))).wait();
  if (!receipt || receipt.status !== 1) throw new Error("measurement batch failed");
  const failures = receipt.logs.filter((log) => registry.interface.parseLog(log)?.name === "ItemFailed");
  if (failures.length > 0) throw new Error(`measurement batch had ${failures.length} failed items`);
  return Number(receipt.gasUsed);
}

/** Runs `measure` from the same chain state every time. */
export async function isolated<T>({ networkHelpers }: NetworkConnection, measure: () => Promise<T>): Promise<T> {
  const snapshot = await networkHelpers.takeSnapshot();
  try {
    return await measure();
  } finally {
    await snapshot.restore();
  }
}
