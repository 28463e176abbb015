import type { RegistryBatchItem } from "../../../registry";

/** A ledger row waiting for the chain, with its batch item decoded from the stored payload. */
export interface PendingAction {
  id: string;
  seq: bigint;
  item: RegistryBatchItem;
  acceptedAt: Date;
}
