import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import type { CallbackViewDto } from "./dto/callback-view.dto";

export const CALLBACK_STATUSES = ["pending", "delivered", "failed"] as const;

interface CallbackRow {
  id: string;
  action_id: string;
  event_id: string;
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The delivery log an organization sees, and redelivery on request. */
@Injectable()
export class CallbacksService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(organizationId: string, filter: { status?: string; eventId?: string; limit: number }): Promise<CallbackViewDto[]> {
    const rows = (await this.dataSource.query(
      `${SELECT_CALLBACKS}
        WHERE c.organization_id = $1 AND ($2::text IS NULL OR c.status = $2) AND ($3::text IS NULL OR e.event_id = $3)
        ORDER BY c.seq DESC LIMIT $4`,
      [organizationId, filter.status ?? null, filter.eventId ?? null, filter.limit],
    )) as CallbackRow[];
    return rows.map(toView);
  }

  async find(organizationId: string, callbackId: string): Promise<CallbackViewDto> {
    if (!UUID.test(callbackId)) throw notFound(callbackId);
    const [row] = (await this.dataSource.query(`${SELECT_CALLBACKS} WHERE c.organization_id = $1 AND c.id = $2`, [organizationId, callbackId])) as CallbackRow[];
    if (!row) throw notFound(callbackId);
    return toView(row);
  }

  /** Sends the callback again now, with a fresh retry schedule; its webhook-id stays the same. */
  async redeliver(organizationId: string, callbackId: string): Promise<CallbackViewDto> {
    if (!UUID.test(callbackId)) throw notFound(callbackId);
    const [, updated] = (await this.dataSource.query(
      `UPDATE callbacks SET status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL, updated_at = now()
        WHERE id = $1 AND organization_id = $2`,
      [callbackId, organizationId],
    )) as [unknown, number];
    if (!updated) throw notFound(callbackId);
    return this.find(organizationId, callbackId);
  }
}

const SELECT_CALLBACKS = `
  SELECT c.id, c.action_id, e.event_id, t.ticket_id, c.payload, c.status, c.attempts, c.next_attempt_at, c.delivered_at,
         c.last_status_code, c.last_error, c.created_at,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('startedAt', a.started_at, 'durationMs', a.duration_ms, 'url', a.url,
                                                       'statusCode', a.status_code, 'error', a.error) ORDER BY a.started_at)
                     FROM callback_attempts a WHERE a.callback_id = c.id), '[]'::jsonb) AS attempt_log
    FROM callbacks c
    JOIN events e ON e.id = c.event_ref
    LEFT JOIN tickets t ON t.id = c.ticket_ref`;

function notFound(callbackId: string): ApiError {
  return new ApiError(404, errorDetail("callback_not_found", `No callback has the id ${callbackId}.`));
}

function toView(row: CallbackRow): CallbackViewDto {
  return {
    callbackId: row.id,
    actionPromise: row.action_id,
    eventId: row.event_id,
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
