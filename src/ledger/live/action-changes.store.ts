import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { ChainActionKind, ChainActionStatus } from "../chain-action-kind";
import type { ActionStatusDto } from "../dto/action-status.dto";
import { transferOf } from "../dto/action-view.dto";
import type { ChangePosition } from "./change-position";

/** Which of an organization's actions a stream follows: an event's (or one of its tickets'), or a list of promises. */
export type ChangeFilter = { eventRef: string; ticketRef: string | null } | { actionIds: string[] };

/** One entry of the change log: the action's state right after the change, as GET /api/v1/actions/{promise} shows it. */
export interface ActionChange {
  position: ChangePosition;
  action: ActionStatusDto;
}

interface ChangeRow {
  id: string;
  tx: string;
  action_id: string;
  kind: ChainActionKind;
  requested_as: string;
  payload: Record<string, unknown> | null;
  status: ChainActionStatus;
  tx_hash: string | null;
  block_number: string | null;
  block_hash: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  changed_at: Date;
  event_id: string;
  ticket_id: string | null;
}

/** How long the change log keeps an entry: a client away longer resumes with what is left. */
export const CHANGE_RETENTION_DAYS = 7;
/** Entries deleted per statement by prune(). */
const PRUNE_BATCH = 5_000;

/**
 * Reads of the ordered change log of the ledger (chain_action_changes, written by triggers on
 * chain_actions in whatever process changes an action). Only entries of transactions older than
 * every running one are read, in (tx, id) order: an entry is never found behind a position a reader
 * has already passed, so a position is a resumable cursor.
 */
@Injectable()
export class ActionChangesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The organization's event by the integrator's id; null when it has none. */
  async eventRef(organizationId: string, eventId: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ id: string }[]>(`SELECT id FROM events WHERE organization_id = $1 AND event_id = $2 AND released_at IS NULL`, [
      organizationId,
      eventId,
    ]);
    return row?.id ?? null;
  }

  /** The organization's ticket of that event; null when there is none. */
  async ticketRef(organizationId: string, eventRef: string, ticketId: string): Promise<string | null> {
    const [row] = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM tickets WHERE organization_id = $1 AND event_ref = $2 AND ticket_id = $3 AND released_at IS NULL`,
      [organizationId, eventRef, ticketId],
    );
    return row?.id ?? null;
  }

  /** Up to `limit` changes after `after` of the organization's actions that the filter takes, oldest first. */
  async changesAfter(organizationId: string, filter: ChangeFilter, after: ChangePosition, limit: number): Promise<ActionChange[]> {
    const [condition, value] =
      "actionIds" in filter
        ? ["c.action_id = ANY($5::uuid[])", filter.actionIds]
        : filter.ticketRef === null
          ? ["c.event_ref = $5::uuid", filter.eventRef]
          : ["c.ticket_ref = $5::uuid", filter.ticketRef];
    const rows = await this.dataSource.query<ChangeRow[]>(
      `SELECT c.id, c.tx::text AS tx, c.action_id, a.kind, a.requested_as, CASE WHEN a.kind = 'transferred' THEN a.payload END AS payload, c.status, c.tx_hash, c.block_number, c.block_hash,
              c.error_code, c.error_message, a.created_at, c.changed_at, e.event_id, t.ticket_id
         FROM chain_action_changes c
         JOIN chain_actions a ON a.id = c.action_id
         JOIN events e ON e.id = c.event_ref
         LEFT JOIN tickets t ON t.id = c.ticket_ref
        WHERE c.organization_id = $1 AND ${condition}
          AND (c.tx, c.id) > ($2::xid8, $3::bigint)
          AND c.tx < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY c.tx, c.id
        LIMIT $4`,
      [organizationId, after.tx, after.id, limit, value],
    );
    return rows.map(toChange);
  }

  /**
   * Deletes entries older than the retention period, PRUNE_BATCH at a time, oldest first; how many.
   * One statement for an hour of a busy ledger's changes would hold its locks and write its WAL in
   * one burst. Each batch is the log's first PRUNE_BATCH entries along the primary key (which
   * follows the time they were written), the aged among them deleted: asked for the aged entries
   * instead, PostgreSQL read every aged entry for each batch, hours for a backlog of millions.
   */
  async prune(batch = PRUNE_BATCH): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [, count] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM chain_action_changes AS c
          USING (SELECT id, changed_at FROM chain_action_changes ORDER BY id LIMIT $2) AS oldest
          WHERE c.id = oldest.id AND oldest.changed_at < now() - make_interval(days => $1)`,
        [CHANGE_RETENTION_DAYS, batch],
      );
      deleted += count;
      if (count < batch) return deleted;
    }
  }
}

function toChange(row: ChangeRow): ActionChange {
  const position = { tx: row.tx, id: row.id };
  return {
    position,
    action: {
      actionPromise: row.action_id,
      action: row.kind,
      requestedAs: row.requested_as,
      status: row.status,
      txHash: row.tx_hash,
      blockNumber: row.block_number === null ? null : Number(row.block_number),
      blockHash: row.block_hash,
      error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? "" },
      transfer: transferOf(row),
      acceptedAt: row.created_at.toISOString(),
      updatedAt: row.changed_at.toISOString(),
      eventId: row.event_id,
      ticketId: row.ticket_id,
    },
  };
}
