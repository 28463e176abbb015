import type { AuthenticatedOrganization } from "../../src/auth/authenticated-organization";
import { uuidv7 } from "../../src/common/uuid-v7";
import { type ClassConstructor, validateItem } from "../../src/common/validation/validate-item";
import { EventEntity } from "../../src/events/entities/event.entity";
import { type EventWorkingSetStore, EventWorkingSet } from "../../src/events/event-working-set";
import type { AcceptanceContext } from "../../src/ledger/acceptance-context";
import { type ActionEntry, ActionRecorder } from "../../src/ledger/action-recorder";
import { tokenIdOf } from "../../src/registry";
import { TicketEntity } from "../../src/tickets/entities/ticket.entity";
import type { ClaimReceiverFacts } from "../../src/tickets/claim-receivers";
import { ClaimReceiverRules, type TicketParts } from "../../src/tickets/ticket-acceptance";
import { type TicketWorkingSetStore, TicketWorkingSet } from "../../src/tickets/ticket-working-set";

/**
 * An in-memory acceptance for unit tests of the acceptance rules: the real working sets and
 * recorder, loaded from seeded rows through in-memory stores. Once loaded, the stores refuse every
 * call, so a rule that reaches for storage (instead of the working sets) fails the test. The real
 * repositories are tested against PostgreSQL in test/stores.
 */

export const ORGANIZATION: AuthenticatedOrganization = {
  id: "0190a000-0000-7000-8000-000000000001",
  ticketeerId: "ticketeer-42",
  name: "Example Tickets B.V.",
  keyPrefix: "tk_test",
  keyScope: "full",
};

export const OTHER_ORGANIZATION: AuthenticatedOrganization = {
  id: "0190a000-0000-7000-8000-000000000002",
  ticketeerId: "ticketeer-77",
  name: "Other Tickets Ltd",
  keyPrefix: "tk_other",
  keyScope: "full",
};

/** Unix seconds the fixture's acceptance happens at, unless told otherwise. */
export const NOW = 1_750_000_000n;

/**
 * An event row as it would come from the database; belongs to ORGANIZATION unless overridden. Its
 * last serial is its ticketsSold unless given (no gaps).
 */
export function anEvent(overrides: Partial<EventEntity> = {}): EventEntity {
  const event = Object.assign(
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
      description: "",
      ticketImageUrl: "",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000n,
      endTime: 1_900_010_800n,
      callbackUrl: "https://integrator.example.com/callbacks",
      ticketsSold: 0n,
      cancelledAt: null,
      callbackFailingSince: null,
      callbackDisabledAt: null,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    },
    overrides,
  );
  event.lastSerial = overrides.lastSerial ?? event.ticketsSold;
  return event;
}

/**
 * A sold ticket row of `event`; its next serial unless overridden, tokenId to match. Raises the
 * event's ticketsSold and last serial to the serial, as the sale that created the row would have.
 */
export function aTicket(event: EventEntity, overrides: Partial<TicketEntity> = {}): TicketEntity {
  const serial = overrides.serial ?? event.lastSerial + 1n;
  if (event.ticketsSold < serial) event.ticketsSold = serial;
  if (event.lastSerial < serial) event.lastSerial = serial;
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
      name: "",
      description: "",
      animationUrl: "",
      attributes: [],
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
 * Stands in for the repositories while the working sets load: answers the locked reads from the
 * seeded rows (filtered by organization and ids, as the SQL does) and the registry index sequence.
 * After `seal()` every call throws.
 */
class SeededStores {
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

  readonly eventStore: EventWorkingSetStore = {
    lockForAcceptance: async (organizationId, eventIds) => {
      this.assertOpen("lockForAcceptance");
      return this.events.filter((row) => row.organizationId === organizationId && eventIds.includes(row.eventId));
    },
    readForAcceptance: async (organizationId, eventIds) => {
      this.assertOpen("readForAcceptance");
      return this.events.filter((row) => row.organizationId === organizationId && eventIds.includes(row.eventId));
    },
    readByRefsForAcceptance: async (organizationId, ids) => {
      this.assertOpen("readByRefsForAcceptance");
      return this.events.filter((row) => row.organizationId === organizationId && ids.includes(row.id));
    },
    reserveRegistryIndexes: async (count) => {
      this.assertOpen("reserveRegistryIndexes");
      return Array.from({ length: count }, () => this.nextEventIndex++);
    },
    insertNew: () => this.refuse("insertNew"),
    saveChanges: () => this.refuse("saveChanges"),
    addTicketsSold: () => this.refuse("addTicketsSold"),
  };

  readonly ticketStore: TicketWorkingSetStore = {
    lockForAcceptance: async (organizationId, ticketIds) => {
      this.assertOpen("lockForAcceptance");
      return this.tickets.filter((row) => row.organizationId === organizationId && ticketIds.includes(row.ticketId));
    },
    insertNew: () => this.refuse("insertNew"),
    saveChanges: () => this.refuse("saveChanges"),
  };

  private refuse(method: string): never {
    throw new Error(`in-memory store: ${method} is not part of a rule's work`);
  }

  private assertOpen(method: string): void {
    if (this.sealed) throw new Error(`in-memory store: ${method} called while the rules run: rules must use the working sets only`);
  }
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
  /** What the ledger knows of its chain, that claims' receivers are checked against (default: not bound yet). */
  receivers?: ClaimReceiverFacts;
}

export interface AcceptanceFixture {
  context: AcceptanceContext<TicketParts>;
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
  const stores = new SeededStores(events, tickets, options.firstEventIndex ?? 100n);
  const eventSet = new TrackingEventWorkingSet(stores.eventStore, organization.id);
  const ticketSet = new TrackingTicketWorkingSet(stores.ticketStore, organization.id);
  // The recorder only collects until its flush, which a rule never calls: it needs no manager.
  const recorder = new RecordingActionRecorder(null as never, organization.id, "request-1");
  await eventSet.load(
    events.map((event) => event.eventId),
    options.newEvents ?? 8,
  );
  await ticketSet.load(tickets.map((ticket) => ticket.ticketId));
  await eventSet.loadRefs(ticketSet.eventRefs());
  const receivers = new ClaimReceiverRules({ load: async () => options.receivers ?? { binding: null, signers: [] } });
  await receivers.load();
  stores.seal();

  return {
    context: { organization, now: options.now ?? NOW, events: eventSet, tickets: ticketSet, receivers, actions: recorder },
    recorded: recorder.recorded,
    touchedEvents: eventSet.touched,
    touchedTickets: ticketSet.touched,
  };
}
