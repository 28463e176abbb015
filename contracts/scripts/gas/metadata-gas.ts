import { concat, type ContractTransactionResponse, id, toBeHex } from "ethers";
import type { NetworkConnection } from "hardhat/types/network";

import { encodeBatch, ticketHashOf, tokenIdOf, type RegistryWireItem } from "../registry.js";

/** Tickets of the metadata measurements: the batch of 100 the per-ticket targets are held at. */
export const METADATA_BATCH = 100;

/** The hash may cost an updated ticket at most this much gas at a batch of 100. */
export const METADATA_HASH_BUDGET = 1_000;

/**
 * Gas per ticket of the metadata items at a batch of 100, and the share of it the hash costs:
 * - soldWithMetadata: sales with their hashes (batches of 1, 10 and 100), measured as sales are;
 * - updateTicket: 100 updates of consecutive tokens (one ERC-4906 range) and of tokens 64 serials apart (each in
 *   its own flag word, each signalled alone), tickets sold before;
 * - metadataHash: the hash's share per ticket. Of a sale: soldWithMetadata minus sold at 100. Of an update:
 *   src/bench/MetadataHashBench.sol's run of the same 100 consecutive updates with and without the hash; the
 *   registry has no update without one to compare with.
 */
export interface MetadataGas {
  soldWithMetadata: Record<"1" | "10" | "100", number>;
  updateTicket: Record<"contiguous" | "scattered", number>;
  metadataHash: Record<"soldWithMetadata" | "updateTicket", number>;
}

type Measure = (items: RegistryWireItem[]) => Promise<number>;
type Isolated = <T>(measure: () => Promise<T>) => Promise<T>;

const ORDER_TIME = 1_750_000_000n;

export async function measureMetadataGas(
  connection: NetworkConnection,
  eventIndex: bigint,
  gasUsed: Measure,
  isolated: Isolated,
  soldAt100: number,
): Promise<MetadataGas> {
  const perTicket = async (items: RegistryWireItem[]) => Math.round((await gasUsed(items)) / items.length);
  const consecutive = serials(1n, 1n).map((serial) => tokenIdOf(eventIndex, serial));
  const scattered = serials(1n, 64n).map((serial) => tokenIdOf(eventIndex, serial));
  const soldWithMetadata = {} as MetadataGas["soldWithMetadata"];
  for (const size of [1, 10, 100] as const) {
    soldWithMetadata[`${size}`] = await isolated(() => perTicket(consecutive.slice(0, size).map((tokenId, i) => saleWithMetadata(tokenId, i))));
  }
  const updated = (tokenIds: bigint[]) =>
    isolated(async () => {
      await gasUsed(
        tokenIds.map((tokenId, i) => ({ action: "sold", tokenId, ticketHash: ticketHashOf(`ticket-${i}`), price: "49.95", orderTime: ORDER_TIME })),
      );
      return perTicket(tokenIds.map((tokenId) => ({ action: "updateTicket", tokenId, metadataHash: metadataHashOf(tokenId) })));
    });
  const updateTicket = { contiguous: await updated(consecutive), scattered: await updated(scattered) };
  const bench = await benchHashShare(connection, isolated, consecutive);
  return { soldWithMetadata, updateTicket, metadataHash: { soldWithMetadata: soldWithMetadata["100"] - soldAt100, updateTicket: bench } };
}

/** Gas per ticket of MetadataHashBench's updates with the hash minus those without it, the same tickets sold. */
async function benchHashShare({ ethers }: NetworkConnection, isolated: Isolated, tokenIds: bigint[]): Promise<number> {
  const bench = await ethers.deployContract("MetadataHashBench");
  await (await bench.mint(tokenIds)).wait();
  // Each from the same state: the first run would warm the flag words for the second.
  const gasOf = (send: () => Promise<ContractTransactionResponse>) => isolated(async () => Number((await (await send()).wait())!.gasUsed));
  const withHash = encodeBatch(tokenIds.map((tokenId) => ({ action: "updateTicket", tokenId, metadataHash: metadataHashOf(tokenId) })));
  const withoutHash = concat(tokenIds.map((tokenId) => concat(["0x09", toBeHex(tokenId, 16)])));
  const difference = (await gasOf(() => bench.updateTickets(withHash))) - (await gasOf(() => bench.touchTickets(withoutHash)));
  return Math.round(difference / tokenIds.length);
}

function serials(first: bigint, step: bigint): bigint[] {
  return Array.from({ length: METADATA_BATCH }, (_, i) => first + BigInt(i) * step);
}

function saleWithMetadata(tokenId: bigint, position: number): RegistryWireItem {
  return {
    action: "soldWithMetadata",
    tokenId,
    ticketHash: ticketHashOf(`ticket-${position}`),
    price: "49.95",
    orderTime: ORDER_TIME,
    metadataHash: metadataHashOf(tokenId),
  };
}

/** A distinct, non-zero hash per token, the same on every run so that calldata costs repeat exactly. */
function metadataHashOf(tokenId: bigint): string {
  return id(`ticket-metadata-${tokenId}`);
}
