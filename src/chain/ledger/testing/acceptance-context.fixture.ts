import type { ClassConstructor } from "class-transformer";
import type { EntityManager } from "typeorm";

import type { AuthenticatedOrganization } from "../../../auth/authenticated-organization";
import { uuidv7 } from "../../../common/uuid-v7";
import { validateItem } from "../../../common/validation/validate-item";
import { EventEntity } from "../../../events/entities/event.entity";
import { EventWorkingSet } from "../../../events/event-working-set";
import { TicketEntity } from "../../../tickets/entities/ticket.entity";
import { TicketWorkingSet } from "../../../tickets/ticket-working-set";
import { tokenIdOf } from "../../registry";
import type { AcceptanceContext } from "../acceptance-context";
import { type ActionEntry, ActionRecorder } from "../action-recorder";

/**
 * An in-memory acceptance for unit tests of the acceptance rules: the real working sets and
 * recorder, loaded from seeded rows through a stub EntityManager. Once loaded, the stub refuses
 * every call, so a rule that reaches for the database (instead of the working sets) fails the test.
 */

export const ORGANIZATION: AuthenticatedOrganization = {
  id: "0190a000-0000-7000-8000-000000000001",
  ticketeerId: "ticketeer-42",
  name: "Example Tickets B.V.",
  keyPrefix: "tk_test",
};

export const OTHER_ORGANIZATION: AuthenticatedOrganization = {
  id: "0190a000-0000-7000-8000-000000000002",
  ticketeerId: "ticketeer-77",
  name: "Other Tickets Ltd",
  keyPrefix: "tk_other",
};

/** Unix seconds the fixture's acceptance happens at, unless told otherwise. */
export const NOW = 1_750_000_000n;

/** An event row as it would come from the database; belongs to ORGANIZATION unless overridden. */
export function anEvent(overrides: Partial<EventEntity> = {}): EventEntity {
  return Object.assign(
    new EventEntity(),
    {
      id: uuidv7(),
      organizationId: ORGANIZATION.id,
      eventId: "event-1",
      eventIndex: 7n,
      name: "Concert in the Park",
      ticketeerName: "",
      currency: "EUR",
      shopUrl: "https://shop.example.com/concert",
      imageUrl: "",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000n,
      endTime: 1_900_010_800n,
      callbackUrl: "https://integrator.example.com/callbacks",
      ticketsSold: 0n,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    },
    overrides,
  );
}

/**
 * A sold ticket row of `event`; serial 1 unless overridden, tokenId to match. Raises the event's
 * ticketsSold to the serial, as the sale that created the row would have.
 */
export function aTicket(event: EventEntity, overrides: Partial<TicketEntity> = {}): TicketEntity {
  const serial = overrides.serial ?? event.ticketsSold + 1n;
  if (event.ticketsSold < serial) event.ticketsSold = serial;
  return Object.assign(
    new TicketEntity(),
    {
      id: uuidv7(),
      organizationId: event.organizationId,
      eventRef: event.id,
      ticketId: "ticket-1",
      serial,
      tokenId: tokenIdOf(event.eventIndex, serial),
      price: "49.95",
      uri: "",
      orderTime: 1_700_000_000n,
      checkedIn: false,
      invalidated: false,
      claimed: false,
      claimedTo: null,
      resales: 0,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    },
    overrides,
  );
}

/** Validates `raw` with the action's DTO, as the ledger does before any rule runs; throws if invalid. */
export function validated<T extends object>(dto: ClassConstructor<T>, raw: Record<string, unknown>): T {
  const result = validateItem(dto, raw);
  if (result.error) throw new Error(`test input is invalid: ${JSON.stringify(result.error)}`);
  return result.value;
}

export interface RecordedAction extends ActionEntry {
  /** The promise id the recorder handed out. */
  id: string;
}

class RecordingActionRecorder extends ActionRecorder {
  readonly recorded: RecordedAction[] = [];

  override record(entry: ActionEntry): string {
    const id = super.record(entry);
    this.recorded.push({ ...entry, id });
    return id;
  }
}

class TrackingEventWorkingSet extends EventWorkingSet {
  readonly touched: EventEntity[] = [];

  override touch(event: EventEntity): void {
    this.touched.push(event);
    super.touch(event);
  }
}

class TrackingTicketWorkingSet extends TicketWorkingSet {
  readonly touched: TicketEntity[] = [];

  override touch(ticket: TicketEntity): void {
    this.touched.push(ticket);
    super.touch(ticket);
  }
}

/**
 * Stands in for the transaction's EntityManager while the working sets load: answers the row
 * queries from the seeded rows (filtered by organization and ids, as the SQL does) and the
 * registry index sequence. After `seal()` every call throws.
 */
class StubEntityManager {
  private sealed = false;
  private nextEventIndex: bigint;

  constructor(
    private readonly events: readonly EventEntity[],
    private readonly tickets: readonly TicketEntity[],
    firstEventIndex: bigint,
  ) {
    this.nextEventIndex = firstEventIndex;
  }

  seal(): void {
    this.sealed = true;
  }

  getRepository(entity: unknown) {
    this.assertOpen("getRepository");
    if (entity === EventEntity) return { createQueryBuilder: () => rowQuery(this.events, "eventIds", (row) => row.eventId) };
    if (entity === TicketEntity) return { createQueryBuilder: () => rowQuery(this.tickets, "ticketIds", (row) => row.ticketId) };
    throw new Error(`stub EntityManager: no repository for ${String(entity)}`);
  }

  async query(sql: string, parameters: unknown[] = []): Promise<unknown[]> {
    this.assertOpen("query");
    if (sql.includes("nextval('registry_event_index_seq')")) {
      const count = Number(parameters[0]);
      return Array.from({ length: count }, () => ({ index: String(this.nextEventIndex++) }));
    }
    throw new Error(`stub EntityManager: unexpected query ${sql}`);
  }

  private assertOpen(method: string): void {
    if (this.sealed) throw new Error(`stub EntityManager.${method} called while the rules run: rules must use the working sets only`);
  }
}

function rowQuery<Row extends { organizationId: string }>(rows: readonly Row[], idsParameter: string, idOf: (row: Row) => string) {
  let parameters: Record<string, unknown> = {};
  const builder = {
    where(_sql: string, where: Record<string, unknown>) {
      parameters = where;
      return builder;
    },
    orderBy: () => builder,
    setLock: () => builder,
    getMany: async () => {
      const ids = parameters[idsParameter] as string[];
      return rows.filter((row) => row.organizationId === parameters.organizationId && ids.includes(idOf(row)));
    },
  };
  return builder;
}

export interface AcceptanceFixtureOptions {
  organization?: AuthenticatedOrganization;
  now?: bigint;
  /** Rows "in the database", of any organization; the acceptance loads those of its organization. */
  events?: EventEntity[];
  tickets?: TicketEntity[];
  /** Registry indexes reserved for new events (the plan's newEvents). */
  newEvents?: number;
  /** The first index the registry sequence hands out. */
  firstEventIndex?: bigint;
}

export interface AcceptanceFixture {
  context: AcceptanceContext;
  /** Every action recorded, in order, with its promise id. */
  recorded: RecordedAction[];
  /** Events and tickets the rules marked as changed (touch), in order. */
  touchedEvents: EventEntity[];
  touchedTickets: TicketEntity[];
}

/** An acceptance context loaded, like the ledger's, with every seeded id the request may name. */
export async function acceptanceFixture(options: AcceptanceFixtureOptions = {}): Promise<AcceptanceFixture> {
  const organization = options.organization ?? ORGANIZATION;
  const events = options.events ?? [];
  const tickets = options.tickets ?? [];
  const stub = new StubEntityManager(events, tickets, options.firstEventIndex ?? 100n);
  const manager = stub as unknown as EntityManager;

  const eventSet = new TrackingEventWorkingSet(manager, organization.id);
  const ticketSet = new TrackingTicketWorkingSet(manager, organization.id);
  const recorder = new RecordingActionRecorder(manager, organization.id, "request-1");
  await eventSet.load(
    events.map((event) => event.eventId),
    options.newEvents ?? 8,
  );
  await ticketSet.load(tickets.map((ticket) => ticket.ticketId));
  stub.seal();

  return {
    context: { organization, now: options.now ?? NOW, events: eventSet, tickets: ticketSet, actions: recorder },
    recorded: recorder.recorded,
    touchedEvents: eventSet.touched,
    touchedTickets: ticketSet.touched,
  };
}
