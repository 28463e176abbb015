import type { DataSource, EntityManager } from "typeorm";

import { insertCallbacks } from "../../ledger/outbox";
import { eventKeyOf, ticketHashOf } from "../../registry";

/** What the ledger holds of an index or a token found on chain. */
export interface LedgerSubject {
  /** The action that puts it on chain (newEvent, sold), when the ledger still waits for it. */
  waitingActionId: string | null;
  /** The hash the ledger expects on chain: the event's key, the ticket's hash. */
  expectedHash: string;
}

/** A serial reservation moved past the chain's highest serial of its event. */
export interface SerialMove {
  eventIndex: bigint;
  from: bigint;
  to: bigint;
}

/** The ledger's own action found already applied by a transaction it has no record of (sent from the lost part of the ledger). */
export interface AppliedAction {
  actionId: string;
  blockNumber: number;
  txHash: string;
}

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

  /** The ledger's events under these registry indexes, each with its newEvent action if that still waits. */
  async events(eventIndexes: readonly bigint[]): Promise<Map<bigint, LedgerSubject>> {
    const rows = await this.dataSource.query<{ event_index: string; ticketeer_id: string; event_id: string; waiting: string | null }[]>(
      `SELECT e.event_index::text, o.ticketeer_id, e.event_id,
              (SELECT a.id FROM chain_actions a WHERE a.event_ref = e.id AND a.ticket_ref IS NULL AND a.kind = 'newEvent'
                  AND a.status IN ('waiting_broadcast', 'pending') LIMIT 1) AS waiting
         FROM events e JOIN organizations o ON o.id = e.organization_id
        WHERE e.event_index = ANY($1::bigint[])`,
      [eventIndexes.map(String)],
    );
    return new Map(rows.map((row) => [BigInt(row.event_index), { waitingActionId: row.waiting, expectedHash: eventKeyOf(row.ticketeer_id, row.event_id) }]));
  }

  /** The ledger's tickets under these token ids, each with its sale action if that still waits. */
  async tickets(tokenIds: readonly bigint[]): Promise<Map<bigint, LedgerSubject>> {
    const rows = await this.dataSource.query<{ token_id: string; ticket_id: string; waiting: string | null }[]>(
      `SELECT t.token_id::text, t.ticket_id,
              (SELECT a.id FROM chain_actions a WHERE a.ticket_ref = t.id AND a.kind = 'sold' AND a.status IN ('waiting_broadcast', 'pending') LIMIT 1) AS waiting
         FROM tickets t WHERE t.token_id = ANY($1::numeric[])`,
      [tokenIds.map(String)],
    );
    return new Map(rows.map((row) => [BigInt(row.token_id), { waitingActionId: row.waiting, expectedHash: ticketHashOf(row.ticket_id) }]));
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
   * Closes the ledger's own waiting actions that the chain already applied: confirmed with the
   * transaction that did, and called back as any confirmed action. Sent again they would fail as
   * existing (onchain_event_exists, onchain_ticket_exists).
   */
  async markApplied(applied: readonly AppliedAction[], blockHashes: ReadonlyMap<number, string>, chain: { chainId: bigint; registryAddress: string }) {
    if (applied.length === 0) return [];
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const [rows] = await manager.query<[{ id: string }[], number]>(
        `UPDATE chain_actions AS a
            SET status = 'confirmed', tx_hash = f.tx_hash, block_number = f.block_number, block_hash = f.block_hash,
                tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, error_code = NULL, error_message = NULL, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS f(id, tx_hash, block_number, block_hash)
          WHERE a.id = f.id AND a.status IN ('waiting_broadcast', 'pending')
          RETURNING a.id`,
        [
          applied.map((action) => action.actionId),
          applied.map((action) => action.txHash),
          applied.map((action) => action.blockNumber),
          applied.map((action) => blockHashes.get(action.blockNumber) ?? null),
        ],
      );
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
