import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import type { Request, Response } from "express";

import { ApiError } from "../../common/errors/api-error";
import { errorDetail, invalidField } from "../../common/errors/error-detail";
import { ActionChangesListener } from "./action-changes.listener";
import { type ActionChange, ActionChangesStore, type ChangeFilter } from "./action-changes.store";
import { type ChangePosition, formatPosition, LOG_START, parsePosition } from "./change-position";

/** The most promises one stream follows. */
export const MAX_STREAM_PROMISES = 100;
/** Open streams per organization and API instance. */
export const MAX_STREAMS_PER_ORGANIZATION = 25;
/** The SSE event name of a status change. */
export const STATUS_EVENT = "status";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Changes written per read of the log. */
const PAGE = 500;
/** What EventSource clients wait before reconnecting (the SSE `retry` field). */
const RETRY_MS = 2_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The query of GET /api/v1/actions/events, as received. */
export interface ActionEventsQuery {
  eventId?: unknown;
  ticketId?: unknown;
  promises?: unknown;
  lastEventId?: unknown;
}

/**
 * Live status over Server-Sent Events. Each stream reads the ledger's change log from its position
 * (the client's Last-Event-ID, else the start of the log) and then follows it: woken by PostgreSQL
 * NOTIFY when any process commits a change, and polling besides. Streams end when the application
 * shuts down; clients reconnect with Last-Event-ID and miss nothing.
 */
@Injectable()
export class ActionEventsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger("ActionEvents");
  private readonly streams = new Set<LiveStream>();
  private pruneTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** Comment lines keep idle connections (and proxies) from timing out. Tests shorten these. */
  heartbeatMs = 15_000;
  /** A stream looks at the log this often even without a notification. */
  pollMs = 1_000;
  /** Open streams one organization may hold on this instance (each reads the log once a second). */
  maxStreamsPerOrganization = MAX_STREAMS_PER_ORGANIZATION;

  constructor(
    private readonly store: ActionChangesStore,
    private readonly listener: ActionChangesListener,
  ) {}

  onModuleInit(): void {
    this.pruneTimer = setInterval(() => {
      this.store.prune().then(
        (deleted) => deleted > 0 && this.logger.log(`pruned ${deleted} change log entries`),
        (error: unknown) => this.logger.warn(`pruning the change log failed: ${String(error)}`),
      );
    }, PRUNE_EVERY_MS).unref();
  }

  /** Ends every stream first, so the HTTP server has no open response to wait for. */
  onModuleDestroy(): void {
    this.stopping = true;
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    for (const stream of this.streams) stream.close();
  }

  /** How many streams are open in this process. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Validates the request (errors are thrown before anything is written) and serves the stream until either side ends it. */
  async open(organizationId: string, query: ActionEventsQuery, lastEventIdHeader: string | undefined, request: Request, response: Response): Promise<void> {
    const start = startPosition(lastEventIdHeader, query.lastEventId);
    const filter = await this.filterOf(organizationId, query);
    if ([...this.streams].filter((open) => open.organizationId === organizationId).length >= this.maxStreamsPerOrganization) {
      response.setHeader("Retry-After", String(RETRY_MS / 1000));
      throw new ApiError(
        429,
        errorDetail("rate_limited", `At most ${this.maxStreamsPerOrganization} live status streams per organization are open at a time; close one first.`),
      );
    }
    response.status(200);
    response.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    response.setHeader("Cache-Control", "no-cache, no-transform");
    response.setHeader("Connection", "keep-alive");
    response.setHeader("X-Accel-Buffering", "no");
    response.flushHeaders();
    response.write(`retry: ${RETRY_MS}\n\n`);
    if (this.stopping) {
      response.end();
      return;
    }
    const stream = new LiveStream(this, this.store, organizationId, filter, start, response);
    this.streams.add(stream);
    const unsubscribe = this.listener.subscribe(() => stream.wake());
    request.on("close", () => stream.close());
    try {
      await stream.run();
    } finally {
      unsubscribe();
      this.streams.delete(stream);
      stream.close();
    }
  }

  warn(message: string): void {
    this.logger.warn(message);
  }

  private async filterOf(organizationId: string, query: ActionEventsQuery): Promise<ChangeFilter> {
    const eventId = optionalString(query.eventId, "eventId");
    const ticketId = optionalString(query.ticketId, "ticketId");
    const promises = optionalString(query.promises, "promises");
    if (promises !== undefined) {
      if (eventId !== undefined || ticketId !== undefined) throw badField("promises", "cannot be combined with eventId or ticketId.");
      const actionIds = [...new Set(promises.split(",").map((promise) => promise.trim().toLowerCase()))];
      if (actionIds.some((id) => !UUID.test(id))) throw badField("promises", "must be a comma-separated list of txPromise / actionPromise ids.");
      if (actionIds.length > MAX_STREAM_PROMISES) throw badField("promises", `must list at most ${MAX_STREAM_PROMISES} promises.`);
      return { actionIds };
    }
    if (eventId === undefined) {
      throw ticketId === undefined ? badField("eventId", "or promises is required.") : badField("eventId", "is required with ticketId.");
    }
    const eventRef = await this.store.eventRef(organizationId, eventId);
    if (eventRef === null) throw new ApiError(404, errorDetail("event_not_found", `No event has the id ${eventId}.`));
    if (ticketId === undefined) return { eventRef, ticketRef: null };
    const ticketRef = await this.store.ticketRef(organizationId, eventRef, ticketId);
    if (ticketRef === null) throw new ApiError(404, errorDetail("ticket_not_found", `No ticket of event ${eventId} has the id ${ticketId}.`));
    return { eventRef, ticketRef };
  }
}

/** One open stream: writes the changes after its position, then waits for a notification, a poll or its end. */
class LiveStream {
  private closed = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly service: ActionEventsService,
    private readonly store: ActionChangesStore,
    readonly organizationId: string,
    private readonly filter: ChangeFilter,
    private position: ChangePosition,
    private readonly response: Response,
  ) {
    this.heartbeat = setInterval(() => this.write(": heartbeat\n\n"), service.heartbeatMs);
    response.on("close", () => this.close());
  }

  async run(): Promise<void> {
    while (!this.closed) {
      this.woken = false;
      let changes: ActionChange[] = [];
      try {
        changes = await this.store.changesAfter(this.organizationId, this.filter, this.position, PAGE);
      } catch (error) {
        if (this.closed) return;
        this.service.warn(`reading the change log failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const change of changes) {
        if (this.closed) return;
        this.position = change.position;
        if (!this.write(`id: ${formatPosition(change.position)}\nevent: ${STATUS_EVENT}\ndata: ${JSON.stringify(change.action)}\n\n`)) await this.drained();
      }
      if (changes.length === PAGE) continue;
      await this.idle();
    }
  }

  /** A change may be there: look now. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.wakeUp?.();
    if (!this.response.writableEnded) this.response.end();
  }

  private write(chunk: string): boolean {
    if (this.closed || this.response.writableEnded) return true;
    return this.response.write(chunk);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.response.off("drain", done);
        this.response.off("close", done);
        resolve();
      };
      this.response.on("drain", done);
      this.response.on("close", done);
    });
  }

  /** Until a notification, the poll interval or the end; a notification that came while reading counts at once. */
  private idle(): Promise<void> {
    if (this.woken || this.closed) return new Promise((resolve) => setTimeout(resolve, 20));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, this.service.pollMs);
      this.wakeUp = () => {
        this.wakeUp = null;
        // Notifications come in bursts (one per committing transaction): gather them.
        setTimeout(done, 20);
      };
    });
  }
}

function startPosition(header: string | undefined, queryValue: unknown): ChangePosition {
  const given = header ?? (typeof queryValue === "string" ? queryValue : undefined);
  if (queryValue !== undefined && typeof queryValue !== "string") throw badField("lastEventId", "must be a single value.");
  if (given === undefined || given.trim() === "") return LOG_START;
  const position = parsePosition(given);
  if (!position) throw badField(header !== undefined ? "Last-Event-ID" : "lastEventId", "must be an id this stream sent.");
  return position;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw badField(field, "must be a single non-empty value.");
  if (value.length > (field === "promises" ? MAX_STREAM_PROMISES * 37 : 255)) throw badField(field, "is too long.");
  return value;
}

function badField(field: string, message: string): ApiError {
  return new ApiError(400, invalidField(field, message));
}
