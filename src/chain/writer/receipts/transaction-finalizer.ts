import { Injectable } from "@nestjs/common";
import type { EntityManager } from "typeorm";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { insertCallbacks } from "../../../ledger/outbox";
import { RegistryItemFailure } from "../../../registry";
import type { OpenTransaction } from "../writer-store";
import { WriterStore } from "../writer-store";
import type { BatchOutcome, MinedReceipt } from "./mined-receipt";

/** `TicketCheckedIn` → `onchain_ticket_checked_in`: the stable code of an item the registry refused. */
export function chainFailureCode(reason: RegistryItemFailure): string {
  const name = RegistryItemFailure[reason] ?? `Reason${reason}`;
  return "onchain_" + name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** An action whose transaction was closed, for the log lines: its new status and, for an error, the code. */
export interface ClosedAction {
  id: string;
  requestId: string | null;
  status: "confirmed" | "error" | "waiting_broadcast";
  errorCode: string | null;
  /** When the action was accepted. */
  acceptedAt: Date;
}

const isFinal = (action: ClosedAction) => action.status !== "waiting_broadcast";

const CLOSED_COLUMNS = "a.id, a.request_id, a.status, a.error_code, a.created_at";

type ClosedRow = { id: string; request_id: string | null; status: ClosedAction["status"]; error_code: string | null; created_at: Date };

function closedActions(result: unknown): ClosedAction[] {
  return (result as [ClosedRow[], number])[0].map((row) => ({ id: row.id, requestId: row.request_id, status: row.status, errorCode: row.error_code, acceptedAt: row.created_at }));
}

/**
 * Closes a nonce once its receipt is deep enough: the actions it carried become confirmed or error,
 * tickets learn their holders, and each finalized action gets its callback row, all in one
 * transaction. A reverted transaction puts its actions back in line, up to a limit.
 */
@Injectable()
export class TransactionFinalizer {
  constructor(
    private readonly store: WriterStore,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Returns the actions the transaction carried with their new status, or null when another worker closed the nonce first. */
  async finalize(mined: OpenTransaction, receipt: MinedReceipt, outcome: BatchOutcome | null, chainId: bigint, registryAddress: string): Promise<ClosedAction[] | null> {
    return this.store.transaction(async (manager) => {
      const closed = await closeNonce(manager, mined, receipt);
      if (!closed) return null;
      const actions = receipt.status === 1 && outcome ? await applyOutcome(manager, mined, receipt, outcome) : await this.putBack(manager, mined);
      await insertCallbacks(manager, actions.filter(isFinal).map((action) => action.id), chainId, registryAddress);
      return actions;
    });
  }

  /** Actions that cannot be encoded for the registry fail without a transaction; returns those it failed. */
  async failUnsent(refused: { id: string; reason: string }[], chainId: bigint, registryAddress: string): Promise<ClosedAction[]> {
    return this.store.transaction(async (manager) => {
      const failed = await manager.query(
        `UPDATE chain_actions AS a SET status = 'error', error_code = 'onchain_unencodable', error_message = u.reason, updated_at = now()
           FROM unnest($1::uuid[], $2::text[]) AS u(id, reason) WHERE a.id = u.id AND a.status = 'waiting_broadcast'
         RETURNING ${CLOSED_COLUMNS}`,
        [refused.map((r) => r.id), refused.map((r) => r.reason)],
      );
      await insertCallbacks(manager, refused.map((r) => r.id), chainId, registryAddress);
      return closedActions(failed);
    });
  }

  /** A reverted batch applied nothing: its actions wait again, unless they keep reverting. */
  private async putBack(manager: EntityManager, mined: OpenTransaction): Promise<ClosedAction[]> {
    const rows = await manager.query(
      `UPDATE chain_actions
          SET reverted_attempts = reverted_attempts + 1,
              status = CASE WHEN reverted_attempts + 1 >= $3 THEN 'error' ELSE 'waiting_broadcast' END,
              error_code = CASE WHEN reverted_attempts + 1 >= $3 THEN 'onchain_reverted' END,
              error_message = CASE WHEN reverted_attempts + 1 >= $3 THEN 'The transaction carrying this action reverted ' || (reverted_attempts + 1) || ' times.' END,
              tx_hash = CASE WHEN reverted_attempts + 1 >= $3 THEN tx_hash END,
              tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, updated_at = now()
        WHERE tx_signer = $1 AND tx_nonce = $2 AND status = 'pending'
        RETURNING id, request_id, status, error_code, created_at`,
      [mined.signer, mined.nonce.toString(), this.config.chain.writer.maxRevertedAttempts],
    );
    return closedActions(rows);
  }
}

/** Marks the mined attempt confirmed and its siblings replaced; false if another worker closed it first. */
async function closeNonce(manager: EntityManager, mined: OpenTransaction, receipt: MinedReceipt): Promise<boolean> {
  const confirmed = (await manager.query(
    `UPDATE chain_transactions SET status = $2, block_number = $3, block_hash = $4, gas_used = $5, updated_at = now()
      WHERE id = $1 AND status IN ('signed', 'broadcast', 'mined') RETURNING id`,
    [mined.id, receipt.status === 1 ? "confirmed" : "reverted", receipt.blockNumber, receipt.blockHash, receipt.gasUsed.toString()],
  )) as [unknown[], number];
  if (confirmed[1] === 0) return false;
  await manager.query(`UPDATE chain_transactions SET status = 'replaced', updated_at = now() WHERE signer = $1 AND nonce = $2 AND id <> $3 AND status IN ('signed', 'broadcast', 'mined')`, [
    mined.signer,
    mined.nonce.toString(),
    mined.id,
  ]);
  return true;
}

async function applyOutcome(manager: EntityManager, mined: OpenTransaction, receipt: MinedReceipt, outcome: BatchOutcome): Promise<ClosedAction[]> {
  const failed = [...outcome.failures.entries()];
  const rows = await manager.query(
    `UPDATE chain_actions AS a
        SET status = CASE WHEN f.batch_index IS NULL THEN 'confirmed' ELSE 'error' END,
            error_code = f.code, error_message = f.message,
            tx_hash = $3, block_number = $4, updated_at = now()
       FROM chain_actions AS x
       LEFT JOIN unnest($5::int[], $6::text[], $7::text[]) AS f(batch_index, code, message) ON f.batch_index = x.batch_index
      WHERE a.id = x.id AND x.tx_signer = $1 AND x.tx_nonce = $2 AND x.status = 'pending'
      RETURNING ${CLOSED_COLUMNS}`,
    [
      mined.signer,
      mined.nonce.toString(),
      mined.hash,
      receipt.blockNumber,
      failed.map(([index]) => index),
      failed.map(([, reason]) => chainFailureCode(reason)),
      failed.map(([, reason]) => `The registry refused the item: ${RegistryItemFailure[reason]}.`),
    ],
  );
  if (outcome.holders.size > 0) {
    const holders = [...outcome.holders.entries()];
    await manager.query(
      `UPDATE tickets AS t SET holder = u.holder, updated_at = now() FROM unnest($1::numeric[], $2::text[]) AS u(token_id, holder) WHERE t.token_id = u.token_id`,
      [holders.map(([tokenId]) => tokenId.toString()), holders.map(([, holder]) => holder)],
    );
  }
  return closedActions(rows);
}
