import { uuidv7 } from "../common/uuid-v7";

import type { EntityManager } from "typeorm";

import { recordQueued } from "./organization-queue.store";
import { insertCallbacks } from "./outbox";
import { copyRows } from "../database/copy-rows";
import { type RegistryBatchItem, registryItemToJson } from "../registry";
import type { ChainActionKind } from "./chain-action-kind";
import { type AcceptedUsage, recordAcceptedUsage } from "./usage-entries";

export interface ActionEntry {
  kind: ChainActionKind;
  requestedAs: string;
  eventRef: string;
  /** The event's registry index: every action of an event goes through the same signer. */
  eventIndex: bigint;
  ticketRef: string | null;
  /** What goes on chain; null for a change the chain does not carry. */
  onChain: RegistryBatchItem | null;
}

/** Ledger rows of one acceptance, copied in acceptance order (their seq follows it) in one statement. */
export class ActionRecorder {
  private readonly entries: (ActionEntry & { id: string })[] = [];
  private broadcasts = 0;

  constructor(
    private readonly manager: EntityManager,
    private readonly organizationId: string,
    private readonly requestId: string | null,
  ) {}

  /** Records an accepted action and returns its id (the integrator's promise). */
  record(entry: ActionEntry): string {
    const id = uuidv7();
    this.entries.push({ ...entry, id });
    if (entry.onChain !== null) this.broadcasts += 1;
    return id;
  }

  /** How many actions were recorded. */
  get count(): number {
    return this.entries.length;
  }

  /** How many of the recorded actions go on chain. */
  get broadcastCount(): number {
    return this.broadcasts;
  }

  async flush(): Promise<void> {
    await copyRows(
      this.manager,
      "chain_actions",
      ["id", "organization_id", "kind", "requested_as", "event_ref", "ticket_ref", "status", "payload", "request_id", "shard_key"],
      this.entries.map((x) => [
        x.id,
        this.organizationId,
        x.kind,
        x.requestedAs,
        x.eventRef,
        x.ticketRef,
        x.onChain === null ? "no_broadcast_required" : "waiting_broadcast",
        x.onChain === null ? null : registryItemToJson(x.onChain),
        this.requestId,
        x.eventIndex,
      ]),
    );
    // Their organization's queue grows by those that go on chain (see OrganizationQueueStore).
    await recordQueued(this.manager, this.organizationId, this.broadcasts);
    // The usage statement counts them as accepted now (see src/usage).
    await recordAcceptedUsage(this.manager, this.organizationId, acceptedUsage(this.entries));
    // Nothing will confirm these on chain: their callbacks are due at once.
    const unbroadcast = this.entries.filter((entry) => entry.onChain === null).map((entry) => entry.id);
    await insertCallbacks(this.manager, unbroadcast, null, null);
  }
}

/** The entries counted by event and kind: one usage row each. */
function acceptedUsage(entries: readonly ActionEntry[]): AcceptedUsage[] {
  const counts = new Map<string, AcceptedUsage>();
  for (const entry of entries) {
    const key = `${entry.eventRef}:${entry.kind}`;
    const row = counts.get(key);
    if (row) row.count += 1;
    else counts.set(key, { eventRef: entry.eventRef, kind: entry.kind, count: 1 });
  }
  return [...counts.values()];
}
