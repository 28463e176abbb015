import { randomBytes } from "node:crypto";

import { getAddress, hexlify } from "ethers";

import type { LoadModel, ModelEvent, ModelTicket, TicketState } from "./load-model";

export type ActionKind = "newEvent" | "updateEvent" | "sold" | "resold" | "scanned" | "invalidated" | "updateTicket" | "claimed";

/** How an action must end: confirmed on chain, final with nothing on chain, or refused at acceptance on purpose (a claim to a custody address). */
export type Expectation = "confirmed" | "no_broadcast_required" | "refused_receiver";

export interface PlannedAction {
  kind: ActionKind;
  data: Record<string, unknown>;
  expect: Expectation;
  /** newEvent: the event, added to the model once accepted. */
  event?: ModelEvent;
  ticket?: ModelTicket;
  /** The ticket's state once the action is accepted. */
  after?: TicketState;
}

type Choice = "sold" | "resold" | "firstScan" | "rescan" | "invalidated" | "updateTicket" | "claimed" | "updateEvent";

/** The mix, in parts: sales grow the pool of tickets the other actions need. */
const MIX: [Choice, number][] = [
  ["sold", 40],
  ["resold", 10],
  ["firstScan", 14],
  ["rescan", 2],
  ["invalidated", 5],
  ["updateTicket", 8],
  ["claimed", 6],
  ["updateEvent", 2],
];
const MIX_TOTAL = MIX.reduce((sum, [, parts]) => sum + parts, 0);
const SALES_PER_EVENT = 250;
/** Every this many claims, one goes to its event's custody address: refused at acceptance (invalid_field on `to`), on purpose. */
const REFUSED_CLAIM_EVERY = 25;

/**
 * Plans actions that are valid in the state the service has accepted (src/tickets/ticket-rules.ts): sales on accepted
 * events; resales and invalidations of valid tickets; first scans, repeated scans and claims of
 * checked-in ones; metadata updates of tickets not invalidated; event updates on chain (imageUrl)
 * and off chain (callbackUrl only).
 */
export class ActionPlanner {
  private claims = 0;

  constructor(
    private readonly model: LoadModel,
    private readonly callbackUrl: (path?: string) => string,
  ) {}

  /** Up to `count` actions; fewer when nothing can be planned until an event is accepted. */
  plan(count: number): PlannedAction[] {
    const actions: PlannedAction[] = [];
    while (actions.length < count) {
      const action = this.planOne();
      if (!action) break;
      actions.push(action);
    }
    return actions;
  }

  private planOne(): PlannedAction | undefined {
    return this.planChoice(pickChoice()) ?? this.sold();
  }

  private planChoice(choice: Choice): PlannedAction | undefined {
    const { valid, checkedIn } = this.model.pools;
    switch (choice) {
      case "sold":
        return this.sold();
      case "resold":
        return this.onTicket(valid.take(), "resold", "valid", { price: price(), ...orderTime() });
      case "firstScan":
        return this.onTicket(valid.take(), "scanned", "checkedIn", orderTime());
      case "rescan":
        return this.onTicket(checkedIn.take(), "scanned", "checkedIn", orderTime());
      case "invalidated":
        return this.onTicket(valid.take(), "invalidated", "invalidated", orderTime());
      case "updateTicket":
        return this.updateTicket();
      case "claimed":
        return this.claimed(checkedIn.take());
      case "updateEvent":
        return this.updateEvent();
    }
  }

  private sold(): PlannedAction | undefined {
    const event = this.model.currentEvent(SALES_PER_EVENT) ?? (this.model.eventsInFlight > 0 ? this.model.events.at(-1) : undefined);
    if (!event) return this.model.eventsInFlight > 0 ? undefined : this.newEvent();
    event.plannedSales += 1;
    const ticket: ModelTicket = { ticketId: this.model.nextTicketId(), event, state: "valid" };
    return {
      kind: "sold",
      data: { eventId: event.eventId, ticketId: ticket.ticketId, price: price(), ...orderTime() },
      expect: "confirmed",
      ticket,
      after: "valid",
    };
  }

  private newEvent(): PlannedAction {
    const event: ModelEvent = { eventId: this.model.nextEventId(), custody: null, plannedSales: 0 };
    this.model.eventsInFlight += 1;
    const data = {
      eventId: event.eventId,
      eventName: `Soak concert ${event.eventId}`,
      currency: "EUR",
      shopUrl: "https://shop.example.com/soak",
      imageUrl: "https://img.example.com/soak.png",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000,
      endTime: 1_900_010_800,
      callbackUrl: this.callbackUrl(),
    };
    return { kind: "newEvent", data, expect: "confirmed", event };
  }

  private onTicket(ticket: ModelTicket | undefined, kind: ActionKind, after: TicketState, fields: Record<string, unknown>): PlannedAction | undefined {
    if (!ticket) return undefined;
    return { kind, data: { ticketId: ticket.ticketId, ...fields }, expect: "confirmed", ticket, after };
  }

  private updateTicket(): PlannedAction | undefined {
    const ticket = this.model.pools[Math.random() < 0.5 ? "valid" : "checkedIn"].take();
    if (!ticket) return undefined;
    const data = { ticketId: ticket.ticketId, uri: `https://meta.example.com/${ticket.ticketId}/${randomBytes(3).toString("hex")}` };
    return { kind: "updateTicket", data, expect: "no_broadcast_required", ticket, after: ticket.state };
  }

  private claimed(ticket: ModelTicket | undefined): PlannedAction | undefined {
    if (!ticket) return undefined;
    this.claims += 1;
    const refused = this.claims % REFUSED_CLAIM_EVERY === 0 && ticket.event.custody !== null;
    const to = refused ? (ticket.event.custody as string) : getAddress(hexlify(randomBytes(20)));
    return { kind: "claimed", data: { ticketId: ticket.ticketId, to }, expect: refused ? "refused_receiver" : "confirmed", ticket, after: "claimed" };
  }

  private updateEvent(): PlannedAction | undefined {
    const event = this.model.randomEvent();
    if (!event) return undefined;
    if (Math.random() < 0.7) {
      return {
        kind: "updateEvent",
        data: { eventId: event.eventId, imageUrl: `https://img.example.com/${randomBytes(4).toString("hex")}.png` },
        expect: "confirmed",
      };
    }
    // Only where callbacks go: nothing of it is on chain.
    return { kind: "updateEvent", data: { eventId: event.eventId, callbackUrl: this.callbackUrl("/callbacks/updated") }, expect: "no_broadcast_required" };
  }
}

function pickChoice(): Choice {
  let roll = Math.random() * MIX_TOTAL;
  for (const [choice, parts] of MIX) {
    roll -= parts;
    if (roll < 0) return choice;
  }
  return "sold";
}

const price = () => `${10 + Math.floor(Math.random() * 90)}.${String(Math.floor(Math.random() * 100)).padStart(2, "0")}`;

/** Half the actions carry an orderTime; the others take the acceptance time (the API's default). */
const orderTime = (): Record<string, unknown> => (Math.random() < 0.5 ? { orderTime: Math.floor(Date.now() / 1000) } : {});
