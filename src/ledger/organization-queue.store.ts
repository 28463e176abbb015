import { randomUUID } from "node:crypto";

import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

/**
 * How long a reservation holds its room when its acceptance never ends it (the process died): longer
 * than any request may take (HTTP_REQUEST_TIMEOUT_MS is at most an hour, 60 s by default, and an
 * acceptance answers within it).
 */
export const RESERVATION_TTL_SECONDS = 300;

/** Room for an acceptance's actions in its organization's queue: `room` of those asked for, held by `reservationId` (null when none was). */
export interface QueueRoom {
  reservationId: string | null;
  room: number;
  /** The organization's actions accepted and not yet on chain, and the room other acceptances hold, when the room was taken. */
  queued: number;
}

/** Counts an acceptance's actions that go on chain into its organization's queue, in the acceptance's transaction (ActionRecorder). */
export async function recordQueued(manager: EntityManager, organizationId: string, count: number): Promise<void> {
  if (count === 0) return;
  await manager.query(`INSERT INTO organization_queue_changes (organization_id, delta) VALUES ($1, $2)`, [organizationId, count]);
}

/**
 * The organizations' queues: how many of each one's actions are accepted and not yet on chain
 * (waiting_broadcast, waiting_funds, pending), against ORG_MAX_QUEUED_ACTIONS. The count is the
 * organization's row in organization_queues plus its organization_queue_changes: rows each
 * acceptance appends with its actions (recordQueued), and the ledger's trigger for every statement
 * that takes actions out of those statuses or puts them back (see the OrganizationQueues
 * migration). Rows are only appended: the writer never waits for an acceptance, nor an acceptance
 * for the writer. Before an acceptance, `reserve` takes the room it may use in a short transaction
 * of its own (one call of reserve_organization_queue_room), the only one that locks the organization's
 * row: it folds the changes into the row and counts the room other acceptances hold. The acceptance's transaction ends its reservation
 * (`settle`) as its rows, and their count, are committed; so the limit holds across every api
 * process, exactly, and a concurrent acceptance of the same organization waits only for another's
 * reservation, never for its acceptance.
 */
@Injectable()
export class OrganizationQueueStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Room for up to `wanted` actions of the organization under `limit`, held until settled, released or expired. */
  async reserve(organizationId: string, wanted: number, limit: number): Promise<QueueRoom> {
    const reservationId = randomUUID();
    // One round trip: the function locks the organization's row, then counts (see the OrganizationQueues migration).
    const [row] = await this.dataSource.query<{ granted: number; queued: string }[]>(
      `SELECT granted, queued::text FROM reserve_organization_queue_room($1, $2, $3, $4, $5)`,
      [organizationId, wanted, limit, reservationId, RESERVATION_TTL_SECONDS],
    );
    return { reservationId: row.granted > 0 ? reservationId : null, room: row.granted, queued: Number(row.queued) };
  }

  /** Ends the reservation inside the acceptance's transaction: its actions, now rows, count instead. */
  async settle(manager: EntityManager, room: QueueRoom): Promise<void> {
    if (room.reservationId === null) return;
    await manager.query(`DELETE FROM organization_queue_reservations WHERE id = $1`, [room.reservationId]);
  }

  /** Gives the room back when the acceptance failed for good. */
  async release(room: QueueRoom): Promise<void> {
    if (room.reservationId === null) return;
    await this.dataSource.query(`DELETE FROM organization_queue_reservations WHERE id = $1`, [room.reservationId]);
  }

  /** The organization's actions accepted and not yet on chain, rooms held aside (a read for operators and tests). */
  async queuedOf(organizationId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ queued: string }[]>(
      `SELECT (COALESCE((SELECT queued FROM organization_queues WHERE organization_id = $1), 0)
             + COALESCE((SELECT sum(delta) FROM organization_queue_changes WHERE organization_id = $1), 0))::text AS queued`,
      [organizationId],
    );
    return Number(row.queued);
  }
}
