import { encodeItem, type RegistryBatchItem } from "../../../registry";

/** A ledger row waiting for the chain, with its batch item decoded from the stored payload. */
export interface PendingAction {
  id: string;
  seq: bigint;
  /** Whose action it is: the writer takes each organization's in turn (see fairOrder). */
  organizationId: string;
  item: RegistryBatchItem;
  acceptedAt: Date;
  /** The item's bytes once encoded (see encodedItemOf): the plan measures them and the batch carries the same. */
  encoded?: string;
}

/**
 * The action's item as the registry's codec encodes it, encoded once per read: a batch is planned
 * from the bytes it then signs, and only the actions a plan reaches are encoded (a read holds more
 * than a batch can carry). Throws when the codec refuses the item.
 */
export function encodedItemOf(action: PendingAction): string {
  action.encoded ??= encodeItem(action.item);
  return action.encoded;
}
