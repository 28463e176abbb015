import type { DataSource, EntityManager } from "typeorm";

import { BATCH_ITEM_OF_KIND } from "../../common/actions";
import { insertCallbacks } from "../../ledger/outbox";
import { type BatchAction, chainFailureCode, eventKeyOf, RegistryItemFailure, ticketHashOf } from "../../registry";
import { type HolderChange, recordTokenHolders } from "../token-holders";
import type { LostBatchItem } from "./lost-batches";

/** What the ledger expects on chain of an event index or a token it gave: the event's key, the ticket's hash. */
export type ExpectedHash = string;

/** An action of the ledger not yet final on chain, by what it acts on (eventIndex for event actions, tokenId otherwise). */
export interface WaitingAction {
  id: string;
  action: BatchAction;
  subject: bigint;
}

/** A serial reservation moved past the chain's highest serial of its event. */
export interface SerialMove {
  eventIndex: bigint;
  from: bigint;
  to: bigint;
}

/** A waiting action of the ledger that a batch it has no record of carried (sent by the lost part of the ledger). */
export interface AppliedAction {
  actionId: string;
  item: LostBatchItem;
}

/** The batch action each ledger action is sent as (none for a kind that never goes on chain). */
const BATCH_ACTION: Partial<Record<string, BatchAction>> = BATCH_ITEM_OF_KIND;

/** The SQL of `ledger reconcile`: what the ledger knows of what the chain holds, and the moves that put it past the chain. */
export class LedgerReconcileStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Each signer's highest block holding one of its transactions confirmed in the ledger; absent before its first. */
  async lastConfirmedBlocks(signers: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.dataSource.query<{ signer: string; block: string }[]>(
      `SELECT signer, max(block_number)::text AS block FROM chain_transactions WHERE status = 'confirmed' AND signer = ANY($1::text[]) GROUP BY signer`,
      [signers],
    );
    return new Map(rows.map((row) => [row.signer, Number(row.block)]));
  }

  /** The hashes among these that are transactions of the ledger. */
  async knownTransactions(hashes: readonly string[]): Promise<Set<string>> {
    const rows = await this.dataSource.query<{ tx_hash: string }[]>(`SELECT tx_hash FROM chain_transactions WHERE lower(tx_hash) = ANY($1::text[])`, [
      hashes.map((hash) => hash.toLowerCase()),
    ]);
    return new Set(rows.map((row) => row.tx_hash.toLowerCase()));
  }

  /** The keys of the ledger's events under these registry indexes. */
  async events(eventIndexes: readonly bigint[]): Promise<Map<bigint, ExpectedHash>> {
    const rows = await this.dataSource.query<{ event_index: string; ticketeer_id: string; event_id: string }[]>(
      `SELECT e.event_index::text, o.ticketeer_id, e.event_id FROM events e JOIN organizations o ON o.id = e.organization_id WHERE e.event_index = ANY($1::bigint[]) AND e.released_at IS NULL`,
      [eventIndexes.map(String)],
    );
    return new Map(rows.map((row) => [BigInt(row.event_index), eventKeyOf(row.ticketeer_id, row.event_id)]));
  }

  /** The ticket hashes of the ledger's tickets under these token ids. */
  async tickets(tokenIds: readonly bigint[]): Promise<Map<bigint, ExpectedHash>> {
    const rows = await this.dataSource.query<{ token_id: string; ticket_id: string }[]>(
      `SELECT t.token_id::text, t.ticket_id FROM tickets t WHERE t.token_id = ANY($1::numeric[]) AND t.released_at IS NULL`,
      [tokenIds.map(String)],
    );
    return new Map(rows.map((row) => [BigInt(row.token_id), ticketHashOf(row.ticket_id)]));
  }

  /** The actions not final yet, in acceptance order: those a batch on chain may already have carried. */
  async waitingActions(): Promise<WaitingAction[]> {
    const rows = await this.dataSource.query<{ id: string; kind: string; subject: string }[]>(
      `SELECT a.id, a.kind, COALESCE(t.token_id, e.event_index)::text AS subject
         FROM chain_actions a
         JOIN events e ON e.id = a.event_ref
         LEFT JOIN tickets t ON t.id = a.ticket_ref
        WHERE a.status IN ('waiting_broadcast', 'pending')
        ORDER BY a.seq`,
    );
    return rows.flatMap((row) => {
      const action = BATCH_ACTION[row.kind];
      return action ? [{ id: row.id, action, subject: BigInt(row.subject) }] : [];
    });
  }

  /**
   * Moves the registry index sequence past `highest`, the chain's highest event index, so that no new
   * event takes an index the chain holds; the sequence's last value before, or null if it was past already.
   */
  async moveEventIndexes(highest: bigint): Promise<{ from: bigint; to: bigint } | null> {
    // One statement: the read and the move see the same last value.
    const rows = await this.dataSource.query<{ from: string }[]>(
      `SELECT last::text AS from, setval('registry_event_index_seq', $1::bigint, true)
         FROM (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS last FROM registry_event_index_seq) AS s
        WHERE s.last < $1::bigint`,
      [highest.toString()],
    );
    return rows.length === 0 ? null : { from: BigInt(rows[0].from), to: highest };
  }

  /** Moves each ledger event's serial reservations past the chain's highest serial of that event. */
  async moveSerials(highest: ReadonlyMap<bigint, bigint>): Promise<SerialMove[]> {
    if (highest.size === 0) return [];
    const rows = await this.dataSource.query<[{ event_index: string; from: string; to: string }[], number]>(
      `UPDATE events AS e SET last_serial = m.serial, updated_at = now()
         FROM events AS x, unnest($1::bigint[], $2::bigint[]) AS m(event_index, serial)
        WHERE e.id = x.id AND x.event_index = m.event_index AND x.last_serial < m.serial
        RETURNING e.event_index::text, x.last_serial::text AS from, e.last_serial::text AS to`,
      [[...highest.keys()].map(String), [...highest.values()].map(String)],
    );
    return rows[0]
      .map((row) => ({ eventIndex: BigInt(row.event_index), from: BigInt(row.from), to: BigInt(row.to) }))
      .sort((a, b) => (a.eventIndex < b.eventIndex ? -1 : 1));
  }

  /**
   * Closes the ledger's waiting actions that a batch of the lost part of the ledger carried, with what
   * the registry made of each (confirmed, or the item's failure), and calls them back as the receipt
   * watcher would: sent again they would fail as existing or be applied twice.
   */
  async closeApplied(
    applied: readonly AppliedAction[],
    holders: readonly HolderChange[],
    chain: { chainId: bigint; registryAddress: string },
  ): Promise<string[]> {
    if (applied.length === 0) return [];
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const failure = (action: AppliedAction) => action.item.failure;
      const [rows] = await manager.query<[{ id: string }[], number]>(
        `UPDATE chain_actions AS a
            SET status = CASE WHEN f.error_code IS NULL THEN 'confirmed' ELSE 'error' END, error_code = f.error_code, error_message = f.error_message,
                tx_hash = f.tx_hash, block_number = f.block_number, block_hash = f.block_hash,
                tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[]) AS f(id, tx_hash, block_number, block_hash, error_code, error_message)
          WHERE a.id = f.id AND a.status IN ('waiting_broadcast', 'pending')
          RETURNING a.id`,
        [
          applied.map((action) => action.actionId),
          applied.map((action) => action.item.txHash),
          applied.map((action) => action.item.blockNumber),
          applied.map((action) => action.item.blockHash),
          applied.map((action) => (failure(action) === null ? null : chainFailureCode(failure(action) as RegistryItemFailure))),
          applied.map((action) =>
            failure(action) === null
              ? null
              : `The registry refused the item: ${RegistryItemFailure[failure(action) as RegistryItemFailure] ?? "unnamed reason"}.`,
          ),
        ],
      );
      await recordTokenHolders(manager, holders);
      await insertCallbacks(
        manager,
        rows.map((row) => row.id),
        chain.chainId,
        chain.registryAddress,
      );
      return rows.map((row) => row.id);
    });
  }
}
