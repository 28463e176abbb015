import { ZeroHash } from "ethers";

import type { RegistryBatchItem } from "./registry-batch";

const BIGINT_FIELDS = ["eventIndex", "tokenId", "orderTime", "startTime", "endTime"] as const;

/** A batch item as JSON, bigints as decimal strings (how the ledger stores what goes on chain). */
export function registryItemToJson(item: RegistryBatchItem): string {
  const plain: Record<string, unknown> = { ...item };
  for (const field of BIGINT_FIELDS) if (typeof plain[field] === "bigint") plain[field] = plain[field].toString();
  if ("details" in item) plain.details = { ...item.details, startTime: item.details.startTime.toString(), endTime: item.details.endTime.toString() };
  return JSON.stringify(plain);
}

/** The inverse of registryItemToJson, from the parsed JSON. */
export function registryItemFromJson(payload: Record<string, unknown>): RegistryBatchItem {
  const item: Record<string, unknown> = { ...payload };
  for (const field of BIGINT_FIELDS) if (typeof item[field] === "string") item[field] = BigInt(item[field]);
  if (item.details && typeof item.details === "object") {
    const details: Record<string, unknown> = { ...(item.details as Record<string, unknown>) };
    for (const field of BIGINT_FIELDS) if (typeof details[field] === "string") details[field] = BigInt(details[field]);
    // Items accepted before events carried their organizer or metadata hash on chain go out with none.
    details.organizer ??= "";
    details.metadataHash ??= ZeroHash;
    item.details = details;
  }
  return item as unknown as RegistryBatchItem;
}
