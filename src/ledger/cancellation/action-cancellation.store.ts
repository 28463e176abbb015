import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

/** What a cancellation found: the action cancelled, or why not. */
export type CancellationOutcome =
  | { outcome: "cancelled" }
  | { outcome: "not_found" }
  | { outcome: "not_cancellable"; status: string }
  | { outcome: "blocked"; blockedBy: string | null; reason: string };

interface CancelledAction {
  id: string;
  seq: string;
  kind: string;
  status: string;
  event_ref: string;
  ticket_ref: string | null;
}

/** The statuses an action may be withdrawn from: accepted, not signed yet. */
const CANCELLABLE = ["waiting_broadcast", "waiting_funds"];
/** 2^64: an event's token ids are its index times this plus a serial (registry-ids.ts). */
const TOKEN_IDS_PER_EVENT = String(1n << 64n);
/** An action that will never apply: it depends on nothing and nothing depends on it. */
const DEAD = `('error', 'cancelled')`;

/**
 * Withdraws an action that has not gone out, in one transaction that locks it, then its ticket or
 * event: the writer claims actions with `status = 'waiting_broadcast'` in the transaction that
 * commits their signed bytes, so either it claimed the action first (then it is pending: not
 * cancellable) or it finds the action cancelled and plans its batch again. Never both.
 *
 * The subject's accepted state becomes what it would be had the action never been accepted. An
 * action another one accepted after it depends on is not cancelled (a sale with later actions on its
 * ticket, a registration with sales or updates, a check-in with a claim after it).
 */
@Injectable()
export class ActionCancellationStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  cancel(organizationId: string, actionId: string): Promise<CancellationOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const [action] = await manager.query<CancelledAction[]>(
        `SELECT id, seq::text, kind, status, event_ref, ticket_ref FROM chain_actions WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [actionId, organizationId],
      );
      if (!action) return { outcome: "not_found" };
      if (!CANCELLABLE.includes(action.status)) return { outcome: "not_cancellable", status: action.status };
      await lockSubject(manager, action);
      const blocked = await blockerOf(manager, action);
      if (blocked) return { outcome: "blocked", ...blocked };
      await manager.query(`UPDATE chain_actions SET status = 'cancelled', updated_at = now() WHERE id = $1`, [action.id]);
      await undo(manager, action);
      return { outcome: "cancelled" };
    });
  }
}

/** The ticket or event the action acts on, locked as an acceptance locks it: later actions on it wait. */
async function lockSubject(manager: EntityManager, action: CancelledAction): Promise<void> {
  if (action.ticket_ref) await manager.query(`SELECT id FROM tickets WHERE id = $1 FOR UPDATE`, [action.ticket_ref]);
  else await manager.query(`SELECT id FROM events WHERE id = $1 FOR UPDATE`, [action.event_ref]);
}

/** The first later action that depends on this one, or why acceptances still on their way might. */
async function blockerOf(manager: EntityManager, action: CancelledAction): Promise<{ blockedBy: string | null; reason: string } | null> {
  // Its payload holds the new metadata's hash only: what the ticket showed before is gone.
  if (action.kind === "updateTicket")
    return { blockedBy: null, reason: "a ticket's metadata changes at acceptance: send another updateTicket to change it back" };
  if (action.kind === "updateEvent" && (await changedEventMetadata(manager, action)))
    return { blockedBy: null, reason: "the event's off-chain metadata changed at acceptance: send another updateEvent to change it back" };
  const later = await laterDependent(manager, action);
  if (later) return { blockedBy: later, reason: `the later action ${later} depends on it` };
  if (action.kind !== "newEvent") return null;
  // A sale reserves its serial before its acceptance locks anything: a reservation no ticket used
  // may be a sale still being accepted. The event's tickets are the range of token ids its index
  // begins (eventIndex << 64 | serial), which the token id index serves; tickets has no index on
  // event_ref, and a scan of the ledger per cancellation would grow with it.
  const [row] = await manager.query<{ unused: boolean }[]>(
    `SELECT e.last_serial > (SELECT count(*) FROM tickets t
                              WHERE t.token_id > e.event_index * ${TOKEN_IDS_PER_EVENT} AND t.token_id < (e.event_index + 1) * ${TOKEN_IDS_PER_EVENT}) AS unused
       FROM events e WHERE e.id = $1`,
    [action.event_ref],
  );
  return row?.unused ? { blockedBy: null, reason: "sales of the event are being accepted" } : null;
}

/**
 * Whether an event update changed the event's off-chain metadata (its hash differs from that of the
 * registration or update before it): the payload holds that hash only, so nothing could give the
 * metadata back, and the event's details on chain would no longer match what its tokens show.
 */
async function changedEventMetadata(manager: EntityManager, action: CancelledAction): Promise<boolean> {
  const [row] = await manager.query<{ changed: boolean }[]>(
    `SELECT (a.payload->'details'->>'metadataHash') IS DISTINCT FROM
            (SELECT p.payload->'details'->>'metadataHash' FROM chain_actions p
              WHERE p.event_ref = a.event_ref AND p.ticket_ref IS NULL AND p.kind IN ('newEvent', 'updateEvent') AND p.seq < a.seq
                AND p.status NOT IN ${DEAD}
              ORDER BY p.seq DESC LIMIT 1) AS changed
       FROM chain_actions a WHERE a.id = $1`,
    [action.id],
  );
  return row?.changed ?? false;
}

async function laterDependent(manager: EntityManager, action: CancelledAction): Promise<string | null> {
  const dependents: Record<string, [string, string | null]> = {
    sold: ["ticket_ref = $2", action.ticket_ref],
    newEvent: ["event_ref = $2", action.event_ref],
    scanned: ["ticket_ref = $2 AND kind = 'claimed'", action.ticket_ref],
  };
  const dependent = dependents[action.kind];
  if (!dependent) return null;
  const [condition, subject] = dependent;
  const [row] = await manager.query<{ id: string }[]>(
    `SELECT id FROM chain_actions WHERE seq > $1 AND ${condition} AND status NOT IN ${DEAD} ORDER BY seq LIMIT 1`,
    [action.seq, subject],
  );
  return row?.id ?? null;
}

/** Puts the subject back as the actions that remain make it. */
async function undo(manager: EntityManager, action: CancelledAction): Promise<void> {
  const ticket = action.ticket_ref;
  switch (action.kind) {
    case "sold":
      await manager.query(`UPDATE tickets SET released_at = now(), updated_at = now() WHERE id = $1`, [ticket]);
      await manager.query(`INSERT INTO event_sales (event_ref, count) VALUES ($1, -1)`, [action.event_ref]);
      return;
    case "resold":
      await manager.query(
        `UPDATE tickets t SET resales = t.resales - 1, price = COALESCE(last.payload->>'price', t.price),
                order_time = COALESCE((last.payload->>'orderTime')::numeric, t.order_time), updated_at = now()
           FROM (SELECT (SELECT payload FROM chain_actions WHERE ticket_ref = $1 AND kind IN ('sold', 'resold') AND status NOT IN ${DEAD}
                          ORDER BY seq DESC LIMIT 1) AS payload) AS last
          WHERE t.id = $1`,
        [ticket],
      );
      return;
    case "scanned":
      await manager.query(
        `UPDATE tickets SET checked_in = EXISTS (SELECT 1 FROM chain_actions WHERE ticket_ref = $1 AND kind = 'scanned' AND status NOT IN ${DEAD}),
                updated_at = now() WHERE id = $1`,
        [ticket],
      );
      return;
    case "invalidated":
      await manager.query(`UPDATE tickets SET invalidated = false, updated_at = now() WHERE id = $1`, [ticket]);
      return;
    case "claimed":
      await manager.query(`UPDATE tickets SET claimed = false, claimed_to = NULL, updated_at = now() WHERE id = $1`, [ticket]);
      return;
    case "newEvent":
      await manager.query(`UPDATE events SET released_at = now(), updated_at = now() WHERE id = $1`, [action.event_ref]);
      return;
    case "updateEvent":
      await undoEventUpdate(manager, action.event_ref);
      return;
    case "cancelledEvent":
      // Its tickets never changed: with the event, every one of them is as before.
      await manager.query(`UPDATE events SET cancelled_at = NULL, updated_at = now() WHERE id = $1`, [action.event_ref]);
      return;
  }
}

/**
 * The event's details go back to those of its last registration or update that remains (what its
 * payload put on chain). Its organizer shows as before: the organization's own name when the event
 * gave none. A callbackUrl the cancelled update changed stays: it is not in the payload, and took
 * effect at acceptance. An update that changed the description or ticketImageUrl is never cancelled
 * (changedEventMetadata): the payload holds their hash only.
 */
async function undoEventUpdate(manager: EntityManager, eventRef: string): Promise<void> {
  await manager.query(
    `UPDATE events e
        SET name = d->>'name', currency = d->>'currency', shop_url = d->>'shopUrl', image_url = d->>'imageUrl',
            latitude = (d->>'latitude')::float8, longitude = (d->>'longitude')::float8,
            start_time = (d->>'startTime')::numeric, end_time = (d->>'endTime')::numeric,
            ticketeer_name = CASE WHEN d->>'organizer' = o.name THEN '' ELSE d->>'organizer' END, updated_at = now()
       FROM organizations o,
            (SELECT payload->'details' AS d FROM chain_actions
              WHERE event_ref = $1 AND ticket_ref IS NULL AND kind IN ('newEvent', 'updateEvent') AND status NOT IN ${DEAD}
              ORDER BY seq DESC LIMIT 1) AS last
      WHERE e.id = $1 AND o.id = e.organization_id`,
    [eventRef],
  );
}
