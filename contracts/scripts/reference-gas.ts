import { type ContractTransactionResponse, dataSlice, getAddress, id } from "ethers";
import type { NetworkConnection } from "hardhat/types/network";

import type { ReferenceGas } from "../../scripts/lib/gas-figures.js";
import { registryPriceOf, ticketHashOf, tokenIdOf } from "./registry.js";
import { isolated } from "./gas/measure-gas.js";

/**
 * Gas per ticket of the reference contracts (src/bench/ReferenceTickets.sol: OpenZeppelin's
 * ERC721 and ERC721A with TicketRegistry's sale record) in batches of 100, measured as
 * scripts/gas/measure-gas.ts measures TicketRegistry: the batch transaction's gasUsed (21,000 base
 * included) divided by the tickets, each measurement from the same chain state, claims to distinct
 * wallets that held nothing before, sales to distinct holders that held nothing before.
 */
export const REFERENCE_BATCH = 100;

const ORDER_TIME = 1_750_000_000n;

export async function measureReferenceGas(connection: NetworkConnection): Promise<ReferenceGas> {
  const { ethers } = connection;
  const oz = await ethers.deployContract("ReferenceOZTickets");
  const erc721a = await ethers.deployContract("ReferenceERC721ATickets");
  await oz.waitForDeployment();
  await erc721a.waitForDeployment();

  const tokenIds = Array.from({ length: REFERENCE_BATCH }, (_, i) => tokenIdOf(1n, BigInt(i + 1)));
  const custodySales = tokenIds.map((_, i) => ({ ticketHash: ticketHashOf(`ticket-${i}`), price: registryPriceOf("49.95"), orderTime: ORDER_TIME }));
  const holderSales = tokenIds.map((tokenId, i) => ({ to: wallet("holder", i), tokenId, ...custodySales[i] }));
  const claimants = tokenIds.map((_, i) => wallet("claimant", i));
  const erc721aIds = tokenIds.map((_, i) => BigInt(i + 1));
  const perTicket = async (send: () => Promise<ContractTransactionResponse>) => {
    const receipt = await (await send()).wait();
    if (!receipt || receipt.status !== 1) throw new Error("reference batch failed");
    return Math.round(Number(receipt.gasUsed) / REFERENCE_BATCH);
  };
  const measured = (measure: () => Promise<number>) => isolated(connection, measure);
  const ozCustody = () => oz.sellToCustody(tokenIds[0], custodySales);
  const erc721aCustody = () => erc721a.sellToCustody(custodySales);
  return {
    ozSoldToHolders: await measured(() => perTicket(() => oz.sell(holderSales))),
    ozSoldToCustody: await measured(() => perTicket(ozCustody)),
    erc721aSoldToHolders: await measured(() => perTicket(() => erc721a.sell(holderSales))),
    erc721aSoldToCustody: await measured(() => perTicket(erc721aCustody)),
    bitmapScanned: await measured(async () => (await perTicket(ozCustody), perTicket(() => oz.checkIn(tokenIds, ORDER_TIME + 2n)))),
    bitmapInvalidated: await measured(async () => (await perTicket(ozCustody), perTicket(() => oz.invalidate(tokenIds, ORDER_TIME + 2n)))),
    ozClaimed: await measured(async () => (await perTicket(ozCustody), perTicket(() => oz.claim(tokenIds, claimants)))),
    erc721aClaimed: await measured(async () => (await perTicket(erc721aCustody), perTicket(() => erc721a.claim(erc721aIds, claimants)))),
  };
}

/** A distinct address per position that held nothing before, the same on every run. */
function wallet(kind: string, position: number): string {
  return getAddress(dataSlice(id(`${kind}-${position}`), 12));
}
