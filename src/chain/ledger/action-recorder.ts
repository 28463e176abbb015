import { randomUUID } from "node:crypto";

import type { EntityManager } from "typeorm";

import type { RegistryBatchItem } from "../registry";
import type { ChainActionKind } from "../chain-action-kind";

export interface ActionEntry {
  kind: ChainActionKind;
  requestedAs: string;
  eventRef: string;
  ticketRef: string | null;
  /** What goes on chain; null for a change the chain does not carry. */
  onChain: RegistryBatchItem | null;
}

/** Ledger rows of one acceptance, inserted in acceptance order in one statement. */
export class ActionRecorder {
  private readonly entries: (ActionEntry & { id: string })[] = [];

  constructor(
    private readonly manager: EntityManager,
    private readonly organizationId: string,
    private readonly requestId: string | null,
  ) {}

  /** Records an accepted action and returns its promise id. */
  record(entry: ActionEntry): string {
    const id = randomUUID();
    this.entries.push({ ...entry, id });
    return id;
  }

  get broadcastCount(): number {
    return this.entries.filter((entry) => entry.onChain !== null).length;
  }

  async flush(): Promise<void> {
    if (this.entries.length === 0) return;
    const e = this.entries;
    await this.manager.query(
      `INSERT INTO chain_actions (id, organization_id, kind, requested_as, event_ref, ticket_ref, status, payload, request_id)
       SELECT u.id, $2, u.kind, u.requested_as, u.event_ref, u.ticket_ref, u.status, u.payload::jsonb, $8
         FROM unnest($1::uuid[], $3::text[], $4::text[], $5::uuid[], $6::uuid[], $7::text[], $9::text[])
              WITH ORDINALITY AS u(id, kind, requested_as, event_ref, ticket_ref, payload, status, position)
        ORDER BY u.position`,
      [
        e.map((x) => x.id),
        this.organizationId,
        e.map((x) => x.kind),
        e.map((x) => x.requestedAs),
        e.map((x) => x.eventRef),
        e.map((x) => x.ticketRef),
        e.map((x) => (x.onChain === null ? null : JSON.stringify(x.onChain, bigintsAsStrings))),
        this.requestId,
        e.map((x) => (x.onChain === null ? "no_broadcast_required" : "waiting_broadcast")),
      ],
    );
  }
}

function bigintsAsStrings(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
