import type { ContractTransactionResponse, LogDescription } from "ethers";

import type { TicketRegistry } from "../../types/index.js";

/** The registry's logs of a transaction, decoded, in order. */
export async function registryLogs(registry: TicketRegistry, tx: ContractTransactionResponse): Promise<LogDescription[]> {
  const receipt = await tx.wait();
  if (!receipt) throw new Error("transaction was not mined");
  const address = (await registry.getAddress()).toLowerCase();
  return receipt.logs
    .filter((log) => log.address.toLowerCase() === address)
    .map((log) => registry.interface.parseLog(log))
    .filter((log): log is LogDescription => log !== null);
}

export async function itemFailures(registry: TicketRegistry, tx: ContractTransactionResponse) {
  const logs = await registryLogs(registry, tx);
  return logs
    .filter((log) => log.name === "ItemFailed")
    .map((log) => ({ index: Number(log.args.index), subject: log.args.subject as bigint, reason: Number(log.args.reason) }));
}

/** Splits a TicketsCheckedIn / TicketsInvalidated payload into its 24-byte records. */
export function decodeRecords(records: string): { tokenId: bigint; orderTime: bigint }[] {
  const hex = records.slice(2);
  const result = [];
  for (let at = 0; at < hex.length; at += 48) {
    result.push({ tokenId: BigInt("0x" + hex.slice(at, at + 32)), orderTime: BigInt("0x" + hex.slice(at + 32, at + 48)) });
  }
  return result;
}
