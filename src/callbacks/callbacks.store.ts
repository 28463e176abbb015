import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { isCallbackId } from "./callback-id";
import type { CallbackViewDto } from "./dto/callback-view.dto";

/** Narrows an organization's callback list; absent fields do not narrow. */
export interface CallbackFilter {
  status?: string;
  eventId?: string;
  webhookId?: string;
  limit: number;
}

interface CallbackRow {
  id: string;
  action_id: string | null;
  event_id: string | null;
  webhook_ref: string | null;
  ticket_id: string | null;
  payload: Record<string, unknown>;
  status: CallbackViewDto["status"];
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  attempt_log: { startedAt: string; durationMs: number; url: string; statusCode: number | null; error: string | null }[];
}

/** Reads of the outbox as an organization sees it: its callbacks, each with its delivery log. */
@Injectable()
export class CallbacksStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first. */
  async listForOrganization(organizationId: string, filter: CallbackFilter): Promise<CallbackViewDto[]> {
    const rows = await this.dataSource.query<CallbackRow[]>(
      `${SELECT_CALLBACKS}
        WHERE c.organization_id = $1 AND ($2::text IS NULL OR c.status = $2) AND ($3::text IS NULL OR e.event_id = $3)
          AND ($5::uuid IS NULL OR c.webhook_ref = $5)
        ORDER BY c.seq DESC LIMIT $4`,
      [organizationId, filter.status ?? null, filter.eventId ?? null, filter.limit, filter.webhookId ?? null],
    );
    return rows.map(toView);
  }

  /** Null for an unknown id, and for another organization's callback. */
  async findForOrganization(organizationId: string, callbackId: string): Promise<CallbackViewDto | null> {
    if (!isCallbackId(callbackId)) return null;
    const [row] = await this.dataSource.query<CallbackRow[]>(`${SELECT_CALLBACKS} WHERE c.organization_id = $1 AND c.id = $2`, [organizationId, callbackId]);
    return row ? toView(row) : null;
  }
}

const SELECT_CALLBACKS = `
  SELECT c.id, c.action_id, e.event_id, c.webhook_ref, t.ticket_id, c.payload, c.status, c.attempts, c.next_attempt_at, c.delivered_at,
         c.last_status_code, c.last_error, c.created_at,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('startedAt', a.started_at, 'durationMs', a.duration_ms, 'url', a.url,
                                                       'statusCode', a.status_code, 'error', a.error) ORDER BY a.started_at)
                     FROM callback_attempts a WHERE a.callback_id = c.id), '[]'::jsonb) AS attempt_log
    FROM callbacks c
    LEFT JOIN events e ON e.id = c.event_ref
    LEFT JOIN tickets t ON t.id = c.ticket_ref`;

function toView(row: CallbackRow): CallbackViewDto {
  return {
    callbackId: row.id,
    actionPromise: row.action_id,
    eventId: row.event_id,
    webhookId: row.webhook_ref,
    ticketId: row.ticket_id,
    action: String(row.payload.action),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.next_attempt_at.toISOString() : null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    body: row.payload,
    attemptLog: row.attempt_log.map((attempt) => ({ ...attempt, startedAt: new Date(attempt.startedAt).toISOString() })),
  };
}
