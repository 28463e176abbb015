import type { EntityManager } from "typeorm";

import type { ChainActionKind } from "./chain-action-kind";

/**
 * The writes of usage_entries, the usage statement's rows (src/usage reads them): each inside the
 * transaction of what it counts, so a statement never counts what was rolled back. Confirmed and
 * failed counts are the trigger's (see the UsageEntries migration).
 */

/** An acceptance's actions of one event and kind. */
export interface AcceptedUsage {
  eventRef: string;
  kind: ChainActionKind;
  count: number;
}

/** Counts an acceptance's actions, one row per event and kind, at the acceptance's time (ActionRecorder). */
export async function recordAcceptedUsage(manager: EntityManager, organizationId: string, accepted: readonly AcceptedUsage[]): Promise<void> {
  if (accepted.length === 0) return;
  await manager.query(
    `INSERT INTO usage_entries (organization_id, event_ref, kind, accepted)
     SELECT $1, u.event_ref, u.kind, u.count FROM unnest($2::uuid[], $3::text[], $4::int[]) AS u(event_ref, kind, count)`,
    [organizationId, accepted.map((row) => row.eventRef), accepted.map((row) => row.kind), accepted.map((row) => row.count)],
  );
}

/** A transaction's gas and fee attributed to the items of one organization, event and kind it carried. */
export interface TransactionCharge {
  organizationId: string;
  eventRef: string;
  kind: ChainActionKind;
  gas: bigint;
  feeWei: bigint;
}

/** Records a final receipt's charges, at the time of its finalization (FinalizationStore). */
export async function recordTransactionCharges(manager: EntityManager, transactionId: string, charges: readonly TransactionCharge[]): Promise<void> {
  if (charges.length === 0) return;
  await manager.query(
    `INSERT INTO usage_entries (organization_id, event_ref, kind, transaction_id, gas, fee_wei)
     SELECT u.organization_id, u.event_ref, u.kind, $1, u.gas, u.fee_wei
       FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::numeric[]) AS u(organization_id, event_ref, kind, gas, fee_wei)`,
    [
      transactionId,
      charges.map((charge) => charge.organizationId),
      charges.map((charge) => charge.eventRef),
      charges.map((charge) => charge.kind),
      charges.map((charge) => charge.gas.toString()),
      charges.map((charge) => charge.feeWei.toString()),
    ],
  );
}
