import { describe, expect, it } from "vitest";

import { stream } from "../support/callbacks-e2e";
import { allSettled, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { eventBody, newEventData, soldItem } from "../support/fixtures";

/**
 * A ticket's and an event's own metadata, through the real app on a chain: taken on soldTicket,
 * updateTicket, POST /api/v1/sold, newEvent, updateEvent and POST /api/v1/events; merged by
 * updateTicket; every limit refused as invalid_field naming the field, with nothing of the item
 * applied; shown in the ticket and event views and served in the token JSON as OpenSea reads it.
 */

const chainApp = useChainApp();

const EVENT_IMAGE = "https://img.example.com/event.png";
const TICKET_IMAGE = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/ticket.png";
const SEAT = [
  { traitType: "Section", value: "B" },
  { traitType: "Seat", value: "12A" },
  { traitType: "Row", value: 3, displayType: "number" },
];
const METADATA = {
  name: "Concert, seat 12A",
  description: "Front row, left of the stage.",
  animationUrl: "https://video.example.com/12a.mp4",
  attributes: SEAT,
};

async function registeredEvent(extra: Record<string, unknown> = {}): Promise<string> {
  const eventId = uid("event");
  await stream(chainApp.api, [{ action: "newEvent", data: newEventData(eventId, extra) }]);
  return eventId;
}

async function soldTicket(eventId: string, extra: Record<string, unknown> = {}): Promise<{ ticketId: string; promise: string }> {
  const ticketId = uid("ticket");
  const [promise] = await stream(chainApp.api, [{ action: "soldTicket", data: { eventId, ticketId, price: "10.00", ...extra } }]);
  return { ticketId, promise };
}

const ticketView = async (ticketId: string) => (await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body;
const tokenJson = async (tokenId: bigint) => (await fetch(`${chainApp.testApp.baseUrl}/tokens/${tokenId}`)).json();
const metadataOf = (view: Record<string, unknown>) => ({
  uri: view.uri,
  name: view.name,
  description: view.description,
  animationUrl: view.animationUrl,
  attributes: view.attributes,
});

/** A /stream request written as JSON text: what JSON.stringify cannot write (1e999) goes as it is. */
const rawStream = (json: string) => chainApp.api.post("/stream", json);

describe("acceptance", () => {
  it("takes the fields on soldTicket and newEvent, and the views show them", async () => {
    const eventId = await registeredEvent({ description: "Chamber music under the trees.", ticketImageUrl: TICKET_IMAGE });
    const { ticketId } = await soldTicket(eventId, METADATA);
    expect(metadataOf(await ticketView(ticketId))).toEqual({ uri: "", ...METADATA });
    const event = (await chainApp.api.get(`/api/v1/events/${eventId}`)).body;
    expect(event).toMatchObject({ description: "Chamber music under the trees.", ticketImageUrl: TICKET_IMAGE });
  });

  it("takes them on POST /api/v1/sold and POST /api/v1/events", async () => {
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", eventBody(eventId, chainApp.ticketeerId, { description: "D", ticketImageUrl: TICKET_IMAGE }));
    expect(created.body).toMatchObject({ status: "success" });
    const ticketId = uid("ticket");
    const sold = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, ticketId, METADATA)]);
    expect(sold.body[0].status).toBe("success");
    expect(metadataOf(await ticketView(ticketId))).toEqual({ uri: "", ...METADATA });
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ description: "D", ticketImageUrl: TICKET_IMAGE });
  });

  it("takes 100 POST /api/v1/sold items with every field at its limit in one request", async () => {
    const eventId = uid("event");
    await stream(chainApp.api, [{ action: "newEvent", data: newEventData(eventId) }]);
    const long = (length: number) => '"'.repeat(length);
    const items = Array.from({ length: 100 }, () =>
      soldItem(eventId, uid("ticket"), {
        uri: `https://img.example.com/${"u".repeat(231)}`,
        name: long(255),
        description: long(2000),
        animationUrl: `https://video.example.com/${"a".repeat(229)}`,
        attributes: Array.from({ length: 32 }, (_, index) => ({ traitType: `${index}`.padEnd(64, "t"), value: long(255), displayType: undefined })),
      }),
    );
    const body = JSON.stringify(items);
    // Every character a quote, which JSON doubles: far past the 256 KiB the endpoints took before, within their 4 MiB.
    expect(body.length).toBeGreaterThan(2_000_000);
    const answer = await chainApp.api.post("/api/v1/sold", body);
    expect(answer.status).toBe(200);
    expect(answer.body.map((entry: { status: string }) => entry.status)).toEqual(Array(100).fill("success"));
  });

  it("shows blanks and no attributes for a ticket and an event that gave none", async () => {
    const eventId = await registeredEvent();
    const { ticketId } = await soldTicket(eventId);
    expect(metadataOf(await ticketView(ticketId))).toEqual({ uri: "", name: "", description: "", animationUrl: "", attributes: [] });
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ description: "", ticketImageUrl: "" });
  });

  it("changes an event's description and ticketImageUrl with updateEvent, on chain as their hash, keeping what it leaves out", async () => {
    const eventId = await registeredEvent({ description: "Old", ticketImageUrl: TICKET_IMAGE });
    const [promise] = await stream(chainApp.api, [{ action: "updateEvent", data: { eventId, description: "New" } }]);
    expect((await allSettled(chainApp.api, [promise]))[0].status).toBe("confirmed");
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ description: "New", ticketImageUrl: TICKET_IMAGE });
  });
});

describe("updateTicket", () => {
  it("replaces the fields given and keeps those left out, one update after another", async () => {
    const { ticketId } = await soldTicket(await registeredEvent(), { uri: TICKET_IMAGE, ...METADATA });
    await stream(chainApp.api, [{ action: "updateTicket", data: { ticketId, name: "Concert, seat 14C" } }]);
    expect(metadataOf(await ticketView(ticketId))).toEqual({ uri: TICKET_IMAGE, ...METADATA, name: "Concert, seat 14C" });

    const attributes = [{ traitType: "Seat", value: "14C" }];
    await stream(chainApp.api, [{ action: "updateTicket", data: { ticketId, attributes, uri: "ar://Q2Wl1bnTgDRi0A9Q/14c.png" } }]);
    expect(metadataOf(await ticketView(ticketId))).toEqual({ ...METADATA, uri: "ar://Q2Wl1bnTgDRi0A9Q/14c.png", name: "Concert, seat 14C", attributes });

    await stream(chainApp.api, [{ action: "updateTicket", data: { ticketId, description: "", animationUrl: "", attributes: [] } }]);
    expect(metadataOf(await ticketView(ticketId))).toEqual({
      uri: "ar://Q2Wl1bnTgDRi0A9Q/14c.png",
      name: "Concert, seat 14C",
      description: "",
      animationUrl: "",
      attributes: [],
    });
  });

  it("goes on chain with the hash of the ticket's new metadata, confirmed like any action", async () => {
    const { ticketId } = await soldTicket(await registeredEvent());
    const [promise] = await stream(chainApp.api, [{ action: "updateTicket", data: { ticketId, name: "N" } }]);
    expect((await allSettled(chainApp.api, [promise]))[0]).toMatchObject({ status: "confirmed", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });

  it("refuses an update without any field as invalid_field naming uri", async () => {
    const { ticketId } = await soldTicket(await registeredEvent());
    for (const data of [{ ticketId }, { ticketId, name: null }]) {
      const answer = await chainApp.api.post("/stream", [{ action: "updateTicket", data }]);
      expect(answer.body.data[0].error).toMatchObject({ code: "invalid_field", field: "uri" });
    }
  });
});

describe("refusals: invalid_field naming the field, nothing applied", () => {
  const attributes = (count: number) => Array.from({ length: count }, (_, index) => ({ traitType: `Trait ${index}`, value: index }));
  const REFUSED: [string, Record<string, unknown>, string][] = [
    ["the 33rd attribute", { attributes: attributes(33) }, "attributes[32]"],
    ["a 2,001-character description", { description: "d".repeat(2001) }, "description"],
    ["a forged State trait", { attributes: [...SEAT, { traitType: "State", value: "Valid" }] }, "attributes[3].traitType"],
    ["a forged resales trait, in lower case", { attributes: [{ traitType: "resales", value: 0 }] }, "attributes[0].traitType"],
    ["an object value", { attributes: [{ traitType: "Seat", value: { row: 1 } }] }, "attributes[0].value"],
    ["a boolean value", { attributes: [{ traitType: "Seat", value: true }] }, "attributes[0].value"],
    ["a 65-character traitType", { attributes: [{ traitType: "t".repeat(65), value: "1" }] }, "attributes[0].traitType"],
    ["an unknown displayType", { attributes: [{ traitType: "Seat", value: 1, displayType: "percent" }] }, "attributes[0].displayType"],
    ["a 256-character name", { name: "n".repeat(256) }, "name"],
    ["a javascript: animationUrl", { animationUrl: "javascript:alert(1)" }, "animationUrl"],
  ];

  it.each(REFUSED)("refuses %s on soldTicket, updateTicket and POST /api/v1/sold", async (_case, fields, field) => {
    const eventId = await registeredEvent();
    const { ticketId } = await soldTicket(eventId, { uri: TICKET_IMAGE, ...METADATA });
    const before = await ticketView(ticketId);
    const refusedSale = uid("ticket");
    const answer = await chainApp.api.post("/stream", [
      { action: "soldTicket", data: { eventId, ticketId: refusedSale, price: "10.00", ...fields } },
      // A valid field beside the refused one: the item is refused whole, nothing of it applied.
      { action: "updateTicket", data: { ticketId, name: "Must not be applied", ...fields } },
    ]);
    expect(answer.status).toBe(200);
    for (const entry of answer.body.data) {
      expect(entry).toMatchObject({ status: "error", error: { code: "invalid_field", field } });
      expect(entry.error.message.startsWith(`${field} `)).toBe(true);
    }
    const sold = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, uid("ticket"), fields)]);
    expect(sold.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field } });

    const after = await ticketView(ticketId);
    expect(metadataOf(after)).toEqual(metadataOf(before));
    // The sale goes on towards the chain meanwhile: no action was added, whatever their status.
    const kinds = (view: { actions: { action: string; actionPromise: string }[] }) => view.actions.map(({ action, actionPromise }) => [action, actionPromise]);
    expect(kinds(after)).toEqual(kinds(before));
    expect((await chainApp.api.get(`/api/v1/tickets/${refusedSale}`)).status).toBe(404);
  });

  it("refuses a value of 1e999, which JSON parses to Infinity, and a NaN written any way", async () => {
    const eventId = await registeredEvent();
    const { ticketId } = await soldTicket(eventId, METADATA);
    const answer = await rawStream(
      `[{"action":"soldTicket","data":{"eventId":${JSON.stringify(eventId)},"ticketId":"${uid("ticket")}","price":"10.00","attributes":[{"traitType":"Seat","value":1e999}]}},` +
        `{"action":"updateTicket","data":{"ticketId":${JSON.stringify(ticketId)},"name":"Not applied","attributes":[{"traitType":"Seat","value":-1e999}]}}]`,
    );
    expect(answer.status).toBe(200);
    for (const entry of answer.body.data) {
      expect(entry.error).toEqual({ code: "invalid_field", field: "attributes[0].value", message: "attributes[0].value must be a finite number" });
    }
    expect(metadataOf(await ticketView(ticketId))).toEqual({ uri: "", ...METADATA });
    // JSON has no NaN: the request is not JSON at all.
    expect((await rawStream(`[{"action":"updateTicket","data":{"ticketId":"t","attributes":[{"traitType":"Seat","value":NaN}]}}]`)).body.error).toMatchObject({
      code: "invalid_json",
    });
  });

  it("refuses an event's 2,001-character description and an http ticketImageUrl, on newEvent, updateEvent and POST /api/v1/events", async () => {
    const eventId = await registeredEvent({ description: "Kept" });
    for (const [fields, field] of [
      [{ description: "d".repeat(2001) }, "description"],
      [{ ticketImageUrl: "http://img.example.com/t.png" }, "ticketImageUrl"],
    ] as const) {
      const answer = await chainApp.api.post("/stream", [
        { action: "newEvent", data: newEventData(uid("event"), fields) },
        { action: "updateEvent", data: { eventId, eventName: "Not applied", ...fields } },
      ]);
      for (const entry of answer.body.data) expect(entry.error).toMatchObject({ code: "invalid_field", field });
      const created = await chainApp.api.post("/api/v1/events", eventBody(uid("event"), chainApp.ticketeerId, fields));
      expect(created.status).toBe(400);
      expect(created.body.error).toMatchObject({ code: "invalid_field", field });
    }
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ eventName: "Concert", description: "Kept" });
  });
});

describe("the token JSON", () => {
  it("serves the integrator's name, description, animation_url and attributes after the chain's, and follows an update at once", async () => {
    const eventId = await registeredEvent({ eventName: "Concert", imageUrl: EVENT_IMAGE, ticketImageUrl: TICKET_IMAGE });
    const { ticketId, promise } = await soldTicket(eventId, METADATA);
    const bare = await soldTicket(eventId);
    await allSettled(chainApp.api, [promise, bare.promise]);
    const tokens = await tokenIds(chainApp.testApp, [ticketId, bare.ticketId]);

    const token = await tokenJson(tokens.get(ticketId)!);
    expect(token).toMatchObject({
      name: "Concert, seat 12A",
      description: "Front row, left of the stage.",
      animation_url: "https://video.example.com/12a.mp4",
      image: TICKET_IMAGE,
    });
    const traits = token.attributes.map((attribute: { trait_type: string }) => attribute.trait_type);
    expect(traits.slice(0, traits.indexOf("Section"))).toContain("State");
    expect(token.attributes.slice(-3)).toEqual([
      { trait_type: "Section", value: "B" },
      { trait_type: "Seat", value: "12A" },
      { trait_type: "Row", value: 3, display_type: "number" },
    ]);

    const plain = await tokenJson(tokens.get(bare.ticketId)!);
    expect(plain.name).toMatch(/^Concert #\d+$/);
    expect(plain.description).toMatch(/^Ticket #\d+ to Concert/);
    expect(plain).not.toHaveProperty("animation_url");
    expect(plain.image).toBe(TICKET_IMAGE);
    expect(plain.attributes.at(-1).trait_type).toBe("Currency");

    await stream(chainApp.api, [
      {
        action: "updateTicket",
        data: { ticketId, uri: "https://img.example.com/14c.png", name: "Concert, seat 14C", attributes: [{ traitType: "Seat", value: "14C" }] },
      },
    ]);
    const updated = await tokenJson(tokens.get(ticketId)!);
    expect(updated).toMatchObject({ name: "Concert, seat 14C", image: "https://img.example.com/14c.png", description: "Front row, left of the stage." });
    expect(updated.attributes.at(-1)).toEqual({ trait_type: "Seat", value: "14C" });
    expect(updated.attributes.filter((attribute: { trait_type: string }) => attribute.trait_type === "Section")).toEqual([]);
  });

  it("falls back to the event's imageUrl and description when neither ticket nor event gives more", async () => {
    const eventId = await registeredEvent({ imageUrl: EVENT_IMAGE, description: "Chamber music under the trees." });
    const { ticketId, promise } = await soldTicket(eventId);
    await allSettled(chainApp.api, [promise]);
    const token = await tokenJson((await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!);
    expect(token).toMatchObject({ image: EVENT_IMAGE, description: "Chamber music under the trees." });
  });
});
