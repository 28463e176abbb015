import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ApiClient } from "../support/api-client";
import { eventBody, id, newEventData, soldItem } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Concurrent requests on the same ids: exactly one creation wins, and the accepted history of a
 * ticket always obeys the rules, whatever the interleaving.
 */
let testApp: TestApp;
let api: ApiClient;
let ticketeerId: string;
let eventA: string;
let eventB: string;

const ROUNDS = 5;

const codeOf = (entry: { status: string; error?: { code: string } }) => (entry.status === "success" ? "success" : entry.error?.code);

beforeAll(async () => {
  testApp = await startTestApp();
  ({ ticketeerId, api } = await testApp.client());
  [eventA, eventB] = [id("ev-a"), id("ev-b")];
  for (const eventId of [eventA, eventB]) expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
});

afterAll(async () => {
  await testApp?.close();
});

describe("creating the same id concurrently", () => {
  it.each([
    ["the same event", () => [eventA, eventA]],
    ["two different events", () => [eventA, eventB]],
  ])("two requests selling one ticketId in %s: exactly one wins, the other gets ticket_exists", async (_, events) => {
    const soldIn = async (eventId: string) => (await api.get(`/api/v1/events/${eventId}`)).body.ticketsSold as number;
    const before = { [eventA]: await soldIn(eventA), [eventB]: await soldIn(eventB) };
    const wins: Record<string, number> = { [eventA]: 0, [eventB]: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const ticketId = id(`t-race-${round}`);
      const [first, second] = events();
      const answers = await Promise.all([
        api.post("/api/v1/sold", [soldItem(first, ticketId, { price: "1.00" })]),
        api.post("/api/v1/sold", [soldItem(second, ticketId, { price: "2.00" })]),
      ]);
      for (const answer of answers) expect(answer.status).toBe(200);
      const codes = answers.map((answer) => codeOf(answer.body[0])).sort();
      expect(codes).toEqual(["success", "ticket_exists"]);
      const winner = answers.findIndex((answer) => answer.body[0].status === "success");
      const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
      expect(ticket.body.price).toBe(winner === 0 ? "1.00" : "2.00");
      expect(ticket.body.eventId).toBe(events()[winner]);
      expect(ticket.body.actions.map((action: { action: string }) => action.action)).toEqual(["sold"]);
      wins[events()[winner]] += 1;
    }
    // A refused sale consumed no serial: each event counts exactly the sales it won.
    for (const eventId of [eventA, eventB]) expect(await soldIn(eventId)).toBe(before[eventId] + wins[eventId]);
  });

  it("the same ticketId sold concurrently through /stream and /api/v1/sold: one wins", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ticketId = id(`t-mixed-${round}`);
      const [viaStream, viaSold] = await Promise.all([
        api.post("/stream", [
          { action: "soldTicket", data: { eventId: eventB, ticketId, price: "1" } },
          { action: "scannedTicket", data: { ticketId } },
        ]),
        api.post("/api/v1/sold", [soldItem(eventA, ticketId)]),
      ]);
      const streamCodes = viaStream.body.data.map(codeOf);
      const soldCode = codeOf(viaSold.body[0]);
      if (soldCode === "success") {
        // The stream came second: its sale is refused, its scan then applies to the ticket sold by the other request.
        expect(streamCodes[0]).toBe("ticket_exists");
      } else {
        expect(soldCode).toBe("ticket_exists");
        expect(streamCodes).toEqual(["success", "success"]);
      }
      const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
      expect(ticket.body.actions.filter((action: { action: string }) => action.action === "sold")).toHaveLength(1);
    }
  });

  it("two concurrent newEvent with the same eventId: one succeeds, the other gets event_exists", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const eventId = id(`ev-race-${round}`);
      const [viaEvents, viaEvents2, viaStream] = await Promise.all([
        api.post("/api/v1/events", eventBody(eventId, ticketeerId, { eventName: "one" })),
        api.post("/api/v1/events", eventBody(eventId, ticketeerId, { eventName: "two" })),
        api.post("/stream", [{ action: "newEvent", data: newEventData(eventId, { eventName: "three" }) }]),
      ]);
      const outcomes = [
        viaEvents.status === 200 ? "success" : viaEvents.body.error.code,
        viaEvents2.status === 200 ? "success" : viaEvents2.body.error.code,
        codeOf(viaStream.body.data[0]),
      ];
      expect(outcomes.filter((outcome) => outcome === "success")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "event_exists")).toHaveLength(2);
      for (const answer of [viaEvents, viaEvents2]) expect([200, 409]).toContain(answer.status);
      const event = await api.get(`/api/v1/events/${eventId}`);
      expect(event.body.eventName).toBe(["one", "two", "three"][outcomes.indexOf("success")]);
      expect(event.body.actions).toHaveLength(1);
    }
  });
});

describe("an on-sale: many requests selling on one event at once", () => {
  it("10 requests of 50 sales each, with event updates among them: every ticket a serial of its own, tokenIds to match, ticketsSold counts them all", async () => {
    const eventId = id("ev-onsale");
    expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
    const requests = Array.from({ length: 10 }, (_, r) =>
      api.post(
        "/api/v1/sold",
        Array.from({ length: 50 }, (_, i) => soldItem(eventId, id(`t-onsale-${r}-${i}`))),
      ),
    );
    // Changes of the event itself lock its row; the sales around them go on.
    const updates = Array.from({ length: 3 }, (_, u) => api.post("/stream", [{ action: "updateEvent", data: { eventId, eventName: `update ${u}` } }]));
    const answers = await Promise.all(requests);
    for (const update of await Promise.all(updates)) expect(codeOf(update.body.data[0])).toBe("success");
    const ticketIds = answers.flatMap((answer) => {
      expect(answer.status).toBe(200);
      return answer.body.map((entry: { status: string; ticketId: string }) => {
        expect(entry.status).toBe("success");
        return entry.ticketId;
      });
    });
    expect(ticketIds).toHaveLength(500);
    const event = await api.get(`/api/v1/events/${eventId}`);
    expect(event.body.ticketsSold).toBe(500);
    const chains = await Promise.all(ticketIds.map(async (ticketId) => (await api.get(`/api/v1/tickets/${ticketId}`)).body.chain));
    const serials = chains.map((chain: { serial: number }) => chain.serial);
    expect(new Set(serials).size).toBe(500);
    // No request failed: no reservation went unused, so the serials are 1 to 500.
    expect([...serials].sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    for (const chain of chains) {
      expect(chain.eventIndex).toBe(event.body.chain.eventIndex);
      expect(chain.tokenId).toBe(((BigInt(chain.eventIndex) << 64n) | BigInt(chain.serial)).toString());
    }
  });

  it("a sale in the request that creates its event, beside sales of it elsewhere: serials from 1, no two alike", async () => {
    const eventId = id("ev-created-with-sales");
    const created = await api.post("/stream", [
      { action: "newEvent", data: newEventData(eventId) },
      ...Array.from({ length: 3 }, (_, i) => ({ action: "soldTicket", data: soldItem(eventId, id(`t-with-event-${i}`)) })),
    ]);
    expect(created.body.data.map(codeOf)).toEqual(["success", "success", "success", "success"]);
    const more = await Promise.all(Array.from({ length: 3 }, (_, r) => api.post("/api/v1/sold", [soldItem(eventId, id(`t-after-event-${r}`))])));
    for (const answer of more) expect(codeOf(answer.body[0])).toBe("success");
    const ids = [...created.body.data.slice(1), ...more.map((answer) => answer.body[0])].map((entry: { ticketId: string }) => entry.ticketId);
    const serials = await Promise.all(ids.map(async (ticketId) => (await api.get(`/api/v1/tickets/${ticketId}`)).body.chain.serial as number));
    expect(serials.slice(0, 3)).toEqual([1, 2, 3]);
    expect(new Set(serials).size).toBe(6);
    expect((await api.get(`/api/v1/events/${eventId}`)).body.ticketsSold).toBe(6);
  });
});

describe("20 concurrent requests on one ticket", () => {
  type Step = { path: string; item: Record<string, unknown>; kind: "resold" | "scanned" | "invalidated" };

  /** Replays an accepted history against the acceptance rules (src/tickets/ticket-rules.ts); returns the final state or throws. */
  function replay(history: string[]): { checkedIn: boolean; invalidated: boolean; resales: number } {
    const state = { sold: false, checkedIn: false, invalidated: false, resales: 0 };
    for (const action of history) {
      switch (action) {
        case "sold":
          expect(state.sold, "sold twice").toBe(false);
          state.sold = true;
          break;
        case "resold":
          expect(state.checkedIn || state.invalidated, "resale accepted after a check-in or invalidation").toBe(false);
          state.resales += 1;
          break;
        case "scanned":
          expect(state.invalidated, "scan accepted after an invalidation").toBe(false);
          state.checkedIn = true;
          break;
        case "invalidated":
          expect(state.checkedIn || state.invalidated, "invalidation accepted after a check-in or an invalidation").toBe(false);
          state.invalidated = true;
          break;
        default:
          throw new Error(`unexpected action ${action}`);
      }
      expect(state.sold).toBe(true);
    }
    return state;
  }

  it.each([0, 1, 2])("a mix of scanned, checkedin, invalidated and resold leaves a consistent state (round %i)", async (round) => {
    const ticketId = id(`t-storm-${round}`);
    expect((await api.post("/api/v1/sold", [soldItem(eventA, ticketId)])).body[0].status).toBe("success");
    const steps: Step[] = Array.from({ length: 20 }, (_, i) => {
      switch (i % 5) {
        case 0:
          return { path: "/api/v1/scanned", item: { ticketId }, kind: "scanned" };
        case 1:
          return { path: "/api/v1/invalidated", item: { ticketId }, kind: "invalidated" };
        case 2:
          return { path: "/api/v1/resold", item: { ticketId, price: `${i}.00` }, kind: "resold" };
        case 3:
          return { path: "/api/v1/checkedin", item: { ticketId }, kind: "scanned" };
        default:
          return { path: "/api/v1/resold", item: { ticketId, price: `${i}.00` }, kind: "resold" };
      }
    });
    // Rotate the order per round so that a different kind of request tends to arrive first.
    const ordered = [...steps.slice(round * 2), ...steps.slice(0, round * 2)];
    const answers = await Promise.all(ordered.map((step) => api.post(step.path, [step.item])));

    const allowed: Record<Step["kind"], string[]> = {
      resold: ["success", "ticket_checked_in", "ticket_invalidated"],
      scanned: ["success", "ticket_invalidated"],
      invalidated: ["success", "ticket_checked_in", "ticket_invalidated"],
    };
    const accepted: Record<string, number> = { resold: 0, scanned: 0, invalidated: 0 };
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      const code = codeOf(answer.body[0]);
      expect(allowed[ordered[i].kind]).toContain(code);
      if (code === "success") accepted[ordered[i].kind] += 1;
    });

    const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
    const history: string[] = ticket.body.actions.map((action: { action: string }) => action.action);
    const state = replay(history);
    // The answers and the history agree, action by action.
    expect(history.filter((action) => action !== "sold")).toHaveLength(accepted.resold + accepted.scanned + accepted.invalidated);
    for (const kind of ["resold", "scanned", "invalidated"]) expect(history.filter((action) => action === kind)).toHaveLength(accepted[kind]);
    // Either checked in or invalidated (the mix always contains both), never both.
    expect(ticket.body.checkedIn !== ticket.body.invalidated).toBe(true);
    expect(ticket.body).toMatchObject({ checkedIn: state.checkedIn, invalidated: state.invalidated, resales: state.resales });
    expect(ticket.body.state).toBe(state.checkedIn ? "checked_in" : "invalidated");
    expect(accepted.invalidated).toBeLessThanOrEqual(1);
    // Every accepted promise is in the history, in the ledger's order.
    const promises = new Set(ticket.body.actions.map((action: { actionPromise: string }) => action.actionPromise));
    for (const answer of answers) if (answer.body[0].status === "success") expect(promises.has(answer.body[0].txPromise)).toBe(true);
  });
});
