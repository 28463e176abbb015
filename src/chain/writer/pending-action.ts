import type { RegistryBatchItem } from "../registry";

/** A ledger row waiting for the chain, with its batch item decoded from the stored payload. */
export interface PendingAction {
  id: string;
  seq: bigint;
  item: RegistryBatchItem;
  acceptedAt: Date;
}

const BIGINT_FIELDS = ["eventIndex", "tokenId", "orderTime", "startTime", "endTime"] as const;

/** The payload was stored with bigints as decimal strings; this restores them. */
export function itemFromPayload(payload: Record<string, unknown>): RegistryBatchItem {
  const item: Record<string, unknown> = { ...payload };
  for (const field of BIGINT_FIELDS) if (typeof item[field] === "string") item[field] = BigInt(item[field] as string);
  if (item.details && typeof item.details === "object") {
    const details: Record<string, unknown> = { ...(item.details as Record<string, unknown>) };
    for (const field of BIGINT_FIELDS) if (typeof details[field] === "string") details[field] = BigInt(details[field] as string);
    item.details = details;
  }
  return item as unknown as RegistryBatchItem;
}
