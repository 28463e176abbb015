import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { insertCallbacks } from "../../../ledger/outbox";
import { recordTransactionCharges } from "../../../ledger/usage-entries";
import { recordTokenHolders } from "../../token-holders";
import { restoreFailedSubjects } from "../restore/accepted-state-restore.store";
import type { SubjectFactsReader } from "../restore/subject-facts";
import { CLOSED_ACTION_COLUMNS, type ClosedAction, closedActionsOf, type ClosedActionsResult } from "../closed-action";
import type { OpenTransaction } from "../signed-transaction";
import { type CarriedItem, chargesOf, gasByOrganization, splitReceipt } from "./gas-attribution";
import type { MinedReceipt, TokenHolder } from "./mined-receipt";

/** An item of a mined batch the registry skipped: its index in the batch and the error its action ends with. */
export interface RefusedItem {
  batchIndex: number;
  code: string;
  message: string;
}

/** The chain facts every callback carries. */
export interface CallbackChain {
  chainId: bigint;
  registryAddress: string;
}

const isFinal = (action: ClosedAction) => action.status !== "waiting_broadcast";

/** A nonce closed: the actions it carried with their new status, and the receipt's gas attributed to each organization (by ticketeerId). */
export interface ClosedNonce {
  actions: ClosedAction[];
  gasByOrganization: Map<string, bigint>;
}

/**
 * Closes a nonce in one database transaction: the mined attempt and its siblings, the actions it
 * carried, the tickets' holders, a callback row for each action that became final, and the receipt's
 * gas and fee split among the carried items (usage_entries, see splitReceipt). Each method returns the
 * carried actions with their new status, or null when another worker closed the nonce first.
 */
@Injectable()
export class FinalizationStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The batch applied: its actions are confirmed except the refused items, which fail, or wait again
   * when they only came before what they depend on; tickets learn their holders.
   */
  async markConfirmed(
    mined: OpenTransaction,
    receipt: MinedReceipt,
    refused: readonly RefusedItem[],
    holders: ReadonlyMap<bigint, TokenHolder>,
    chain: CallbackChain,
    facts: SubjectFactsReader,
  ): Promise<ClosedNonce | null> {
    return this.closing(mined, receipt, chain, facts, async (manager) => {
      const actions = await markCarriedActionsApplied(manager, mined, receipt, refused);
      await recordHolders(manager, holders, receipt.blockNumber);
      return actions;
    });
  }

  /** The batch reverted and applied nothing: its actions wait again, unless this was their last allowed revert. */
  async requeueReverted(
    mined: OpenTransaction,
    receipt: MinedReceipt,
    maxRevertedAttempts: number,
    chain: CallbackChain,
    facts: SubjectFactsReader,
  ): Promise<ClosedNonce | null> {
    return this.closing(mined, receipt, chain, facts, (manager) => requeueCarriedActions(manager, mined, maxRevertedAttempts));
  }

  private async closing(
    mined: OpenTransaction,
    receipt: MinedReceipt,
    chain: CallbackChain,
    facts: SubjectFactsReader,
    closeActions: (manager: EntityManager) => Promise<ClosedAction[]>,
  ): Promise<ClosedNonce | null> {
    return this.dataSource.transaction(async (manager) => {
      if (!(await closeNonce(manager, mined, receipt))) return null;
      // Read before the actions close: an action that goes back in line leaves the transaction, yet its share of the gas was spent.
      const shares = splitReceipt(receipt.gasUsed, receipt.effectiveGasPrice, await carriedItems(manager, mined));
      await recordTransactionCharges(manager, mined.id, chargesOf(shares));
      const actions = await closeActions(manager);
      // In the same transaction: no acceptance ever sees an action failed and its ticket still as the action left it.
      const failed = actions.filter((action) => action.status === "error").map((action) => action.id);
      await restoreFailedSubjects(manager, failed, facts);
      await insertCallbacks(
        manager,
        actions.filter(isFinal).map((action) => action.id),
        chain.chainId,
        chain.registryAddress,
      );
      return { actions, gasByOrganization: gasByOrganization(shares) };
    });
  }
}

/** The items the mined transaction carried, with what the split of its receipt needs. */
async function carriedItems(manager: EntityManager, mined: OpenTransaction): Promise<CarriedItem[]> {
  const rows = await manager.query<
    { organization_id: string; ticketeer_id: string; event_ref: string; kind: CarriedItem["kind"]; batch_index: number; planned_gas: number | null }[]
  >(
    `SELECT a.organization_id, o.ticketeer_id, a.event_ref, a.kind, a.batch_index, a.planned_gas
       FROM chain_actions a JOIN organizations o ON o.id = a.organization_id
      WHERE a.tx_signer = $1 AND a.tx_nonce = $2 AND a.status = 'pending'
      ORDER BY a.batch_index`,
    [mined.signer, mined.nonce.toString()],
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    ticketeerId: row.ticketeer_id,
    eventRef: row.event_ref,
    kind: row.kind,
    batchIndex: row.batch_index,
    plannedGas: row.planned_gas,
  }));
}

/** Marks the mined attempt confirmed (or reverted) and its siblings replaced; false if another worker closed it first. */
async function closeNonce(manager: EntityManager, mined: OpenTransaction, receipt: MinedReceipt): Promise<boolean> {
  const confirmed = await manager.query<[unknown[], number]>(
    `UPDATE chain_transactions SET status = $2, block_number = $3, block_hash = $4, gas_used = $5, effective_gas_price = $6, updated_at = now()
      WHERE id = $1 AND status IN ('signed', 'broadcast', 'mined') RETURNING id`,
    [
      mined.id,
      receipt.status === 1 ? "confirmed" : "reverted",
      receipt.blockNumber,
      receipt.blockHash,
      receipt.gasUsed.toString(),
      receipt.effectiveGasPrice.toString(),
    ],
  );
  if (confirmed[1] === 0) return false;
  await manager.query(
    `UPDATE chain_transactions SET status = 'replaced', updated_at = now() WHERE signer = $1 AND nonce = $2 AND id <> $3 AND status IN ('signed', 'broadcast', 'mined')`,
    [mined.signer, mined.nonce.toString(), mined.id],
  );
  return true;
}

/** The registry's refusals that mean "not yet": the item came before what it depends on. */
const ORDER_FAILURES = ["onchain_event_unknown", "onchain_ticket_unknown"];

/**
 * The refused items that only came too early: an event the registry did not know while the ledger
 * still has its registration on the way (accepted before the item, neither failed nor mined before
 * this batch), or a ticket whose sale is still on the way. They go back in line (waiting_broadcast,
 * their seq behind their prerequisite's) instead of failing: a valid action never ends in error for order.
 */
async function refusedForOrder(manager: EntityManager, mined: OpenTransaction, receipt: MinedReceipt, refused: readonly RefusedItem[]): Promise<number[]> {
  const candidates = refused.filter((item) => ORDER_FAILURES.includes(item.code));
  if (candidates.length === 0) return [];
  const rows = await manager.query<{ batch_index: number }[]>(
    `SELECT x.batch_index FROM chain_actions AS x
      WHERE x.tx_signer = $1 AND x.tx_nonce = $2 AND x.status = 'pending' AND x.batch_index = ANY($3::int[])
        AND EXISTS (
          SELECT 1 FROM chain_actions AS p
           WHERE p.seq < x.seq
             AND ((p.kind = 'newEvent' AND p.event_ref = x.event_ref) OR (p.kind = 'sold' AND p.ticket_ref = x.ticket_ref))
             AND (p.status IN ('waiting_broadcast', 'waiting_funds') OR (p.status = 'pending' AND (p.tx_signer, p.tx_nonce) IS DISTINCT FROM ($1, $2))
                  OR (p.status = 'confirmed' AND p.block_number > $4)))`,
    [mined.signer, mined.nonce.toString(), candidates.map((item) => item.batchIndex), receipt.blockNumber],
  );
  return rows.map((row) => row.batch_index);
}

/** Items refused for order wait again, without a transaction, and get no callback (they are not final). */
async function requeueItems(manager: EntityManager, mined: OpenTransaction, batchIndexes: readonly number[]): Promise<ClosedAction[]> {
  if (batchIndexes.length === 0) return [];
  const rows = await manager.query<ClosedActionsResult>(
    `UPDATE chain_actions AS a SET status = 'waiting_broadcast', tx_hash = NULL, tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, updated_at = now()
      WHERE a.tx_signer = $1 AND a.tx_nonce = $2 AND a.status = 'pending' AND a.batch_index = ANY($3::int[])
      RETURNING ${CLOSED_ACTION_COLUMNS}`,
    [mined.signer, mined.nonce.toString(), batchIndexes],
  );
  return closedActionsOf(rows);
}

async function markCarriedActionsApplied(
  manager: EntityManager,
  mined: OpenTransaction,
  receipt: MinedReceipt,
  allRefused: readonly RefusedItem[],
): Promise<ClosedAction[]> {
  const early = await refusedForOrder(manager, mined, receipt, allRefused);
  const requeued = await requeueItems(manager, mined, early);
  const refused = allRefused.filter((item) => !early.includes(item.batchIndex));
  const rows = await manager.query<ClosedActionsResult>(
    `UPDATE chain_actions AS a
        SET status = CASE WHEN f.batch_index IS NULL THEN 'confirmed' ELSE 'error' END,
            error_code = f.code, error_message = f.message,
            tx_hash = $3, block_number = $4, block_hash = $8, updated_at = now()
       FROM chain_actions AS x
       LEFT JOIN unnest($5::int[], $6::text[], $7::text[]) AS f(batch_index, code, message) ON f.batch_index = x.batch_index
      WHERE a.id = x.id AND x.tx_signer = $1 AND x.tx_nonce = $2 AND x.status = 'pending'
      RETURNING ${CLOSED_ACTION_COLUMNS}`,
    [
      mined.signer,
      mined.nonce.toString(),
      mined.hash,
      receipt.blockNumber,
      refused.map((item) => item.batchIndex),
      refused.map((item) => item.code),
      refused.map((item) => item.message),
      receipt.blockHash,
    ],
  );
  return [...requeued, ...closedActionsOf(rows)];
}

async function recordHolders(manager: EntityManager, holders: ReadonlyMap<bigint, TokenHolder>, blockNumber: number): Promise<void> {
  await recordTokenHolders(
    manager,
    [...holders.entries()].map(([tokenId, { holder, logIndex }]) => ({ tokenId, holder, blockNumber, logIndex })),
  );
}

/** Past the limit a reverting action fails for good (keeping the hash that last carried it) instead of blocking its shard. */
async function requeueCarriedActions(manager: EntityManager, mined: OpenTransaction, maxRevertedAttempts: number): Promise<ClosedAction[]> {
  const rows = await manager.query<ClosedActionsResult>(
    `UPDATE chain_actions AS a
        SET reverted_attempts = reverted_attempts + 1,
            status = CASE WHEN reverted_attempts + 1 >= $3 THEN 'error' ELSE 'waiting_broadcast' END,
            error_code = CASE WHEN reverted_attempts + 1 >= $3 THEN 'onchain_reverted' END,
            error_message = CASE WHEN reverted_attempts + 1 >= $3 THEN 'The transaction carrying this action reverted ' || (reverted_attempts + 1) || ' times.' END,
            tx_hash = CASE WHEN reverted_attempts + 1 >= $3 THEN tx_hash END,
            tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, updated_at = now()
      WHERE tx_signer = $1 AND tx_nonce = $2 AND status = 'pending'
      RETURNING ${CLOSED_ACTION_COLUMNS}`,
    [mined.signer, mined.nonce.toString(), maxRevertedAttempts],
  );
  return closedActionsOf(rows);
}
