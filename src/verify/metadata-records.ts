import { getAddress, type Log } from "ethers";

import type { TicketRegistryInterface } from "../../typechain-types/TicketRegistry";

/** Byte length of one (uint128 tokenId, bytes32 metadataHash) record of TicketsMetadataUpdated. */
const METADATA_RECORD_BYTES = 48;

/**
 * The hash the registry's TicketsMetadataUpdated logs among `logs` (one transaction's) record last for
 * `tokenId`; null when none of them holds a record of it. Logs of any other contract are ignored: only
 * the registry's count.
 */
export function recordedMetadataHash(registry: TicketRegistryInterface, registryAddress: string, logs: readonly Log[], tokenId: bigint): string | null {
  const topic = registry.getEvent("TicketsMetadataUpdated").topicHash;
  let found: string | null = null;
  for (const log of logs) {
    if (log.topics[0] !== topic || getAddress(log.address) !== getAddress(registryAddress)) continue;
    const [records] = registry.decodeEventLog("TicketsMetadataUpdated", log.data, log.topics) as unknown as [string];
    const bytes = Buffer.from(records.slice(2), "hex");
    for (let offset = 0; offset + METADATA_RECORD_BYTES <= bytes.length; offset += METADATA_RECORD_BYTES) {
      if (BigInt("0x" + bytes.subarray(offset, offset + 16).toString("hex")) === tokenId)
        found = "0x" + bytes.subarray(offset + 16, offset + 48).toString("hex");
    }
  }
  return found;
}
