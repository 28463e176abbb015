import { describe, expect, it } from "vitest";

import { CreateEventDto, NewEventDto } from "../../events/dto/new-event.dto";
import { UpdateEventDto } from "../../events/dto/update-event.dto";
import { ClaimedTicketDto } from "../../tickets/dto/claimed-ticket.dto";
import { ResoldTicketDto } from "../../tickets/dto/resold-ticket.dto";
import { SoldTicketDto } from "../../tickets/dto/sold-ticket.dto";
import { TicketMomentDto } from "../../tickets/dto/ticket-moment.dto";
import { UpdateTicketDto } from "../../tickets/dto/update-ticket.dto";
import { validateItem as sut } from "../../common/validation/validate-item";

const NEW_EVENT = { eventId: "event-1", currency: "EUR", callbackUrl: "https://integrator.example.com/callbacks" };
const CREATE_EVENT = { ...NEW_EVENT, ticketeerId: "ticketeer-42" };
const SOLD = { eventId: "event-1", ticketId: "ticket-1", price: "49.95" };
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

const DTOS = [
  ["CreateEventDto", CreateEventDto, CREATE_EVENT],
  ["NewEventDto", NewEventDto, NEW_EVENT],
  ["UpdateEventDto", UpdateEventDto, { eventId: "event-1", eventName: "Renamed" }],
  ["SoldTicketDto", SoldTicketDto, SOLD],
  ["ResoldTicketDto", ResoldTicketDto, { ticketId: "ticket-1", price: "60" }],
  ["TicketMomentDto", TicketMomentDto, { ticketId: "ticket-1" }],
  ["UpdateTicketDto", UpdateTicketDto, { ticketId: "ticket-1", uri: "ipfs://bafy/1.json" }],
  ["ClaimedTicketDto", ClaimedTicketDto, { ticketId: "ticket-1", to: ADDRESS }],
] as const;

/** Every required field of each DTO: leaving it out must be reported with its name. */
const REQUIRED = [
  ...(["eventId", "currency", "callbackUrl", "ticketeerId"] as const).map((field) => [CreateEventDto, CREATE_EVENT, field] as const),
  ...(["eventId", "currency", "callbackUrl"] as const).map((field) => [NewEventDto, NEW_EVENT, field] as const),
  [UpdateEventDto, { eventId: "event-1", eventName: "Renamed" }, "eventId"] as const,
  ...(["eventId", "ticketId", "price"] as const).map((field) => [SoldTicketDto, SOLD, field] as const),
  ...(["ticketId", "price"] as const).map((field) => [ResoldTicketDto, { ticketId: "ticket-1", price: "60" }, field] as const),
  [TicketMomentDto, { ticketId: "ticket-1" }, "ticketId"] as const,
  // uri is one of the fields an update may carry: acceptance asks for at least one (ticket-rules.spec.ts).
  [UpdateTicketDto, { ticketId: "ticket-1", uri: "ipfs://bafy/1.json" }, "ticketId"] as const,
  ...(["ticketId", "to"] as const).map((field) => [ClaimedTicketDto, { ticketId: "ticket-1", to: ADDRESS }, field] as const),
];

function without(raw: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _left, ...rest } = raw;
  return rest;
}

/** Every action DTO through validateItem, as the ledger validates each item of /stream and the per-action endpoints. */
describe("validateItem with the action DTOs", () => {
  describe.each(DTOS)("%s", (_name, dto, valid) => {
    it("takes a valid item and returns an instance of the DTO", () => {
      const result = sut(dto as never, valid);
      expect(result.error).toBeUndefined();
      expect(result.value).toBeInstanceOf(dto);
      expect(result.value).toMatchObject(valid);
    });

    it.each([[null], [undefined], ["ticket-1"], [42], [true], [[]], [[valid]]])("refuses %j as invalid_item", (raw) => {
      expect(sut(dto as never, raw)).toEqual({ error: { code: "invalid_item", message: "Each item must be a JSON object." } });
    });

    it.each([
      ['"__proto__": null', '"__proto__": null'],
      ['"__proto__": an object', '"__proto__": { "eventId": "inherited", "x": 1 }'],
      ['"constructor"', '"constructor": { "name": "Object" }'],
    ])("ignores %s in the JSON instead of letting it replace the DTO's prototype", (_case, member) => {
      const raw = JSON.parse(`{ ${member}, ${JSON.stringify(valid).slice(1)}`);
      const result = sut(dto as never, raw);
      expect(result.error).toBeUndefined();
      expect(result.value).toBeInstanceOf(dto);
      expect(Object.keys(result.value as object).sort()).toEqual(Object.keys(valid).sort());
    });

    it("strips fields the DTO does not declare, so they are never stored", () => {
      const result = sut(dto as never, { ...valid, status: "confirmed", organizationId: "someone-else", id: "x", tokenId: "1", extra: { a: 1 } });
      expect(result.error).toBeUndefined();
      for (const field of ["status", "organizationId", "id", "tokenId", "extra"]) expect(result.value).not.toHaveProperty(field);
    });
  });

  it.each(REQUIRED.map(([dto, valid, field]) => [dto.name, field, dto, valid] as const))(
    "%s reports a missing %s as invalid_field",
    (_name, field, dto, valid) => {
      const result = sut(dto as never, without(valid, field));
      expect(result.error).toMatchObject({ code: "invalid_field", field });
      expect(result.error?.message).toContain(field);
    },
  );

  it.each(REQUIRED.map(([dto, valid, field]) => [dto.name, field, dto, valid] as const))(
    "%s reports a null %s as invalid_field",
    (_name, field, dto, valid) => {
      expect(sut(dto as never, { ...valid, [field]: null }).error).toMatchObject({ code: "invalid_field", field });
    },
  );

  it("reports the field and the rule it breaks", () => {
    expect(sut(SoldTicketDto, { ...SOLD, price: "12,50" }).error).toEqual({
      code: "invalid_field",
      field: "price",
      message: "price is not a non-negative decimal number such as 12.50",
    });
    expect(sut(SoldTicketDto, { ...SOLD, orderTime: 2 ** 53 }).error).toEqual({
      code: "invalid_field",
      field: "orderTime",
      message: "orderTime is above 2^53 - 1: send integers this large as decimal strings",
    });
    expect(sut(NewEventDto, { ...NEW_EVENT, currency: "eur" }).error).toMatchObject({ code: "invalid_field", field: "currency" });
    expect(sut(ClaimedTicketDto, { ticketId: "t", to: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" }).error).toMatchObject({
      code: "invalid_field",
      field: "to",
    });
  });

  it("refuses blank required ids", () => {
    expect(sut(SoldTicketDto, { ...SOLD, eventId: "" }).error).toMatchObject({ code: "invalid_field", field: "eventId" });
    expect(sut(SoldTicketDto, { ...SOLD, ticketId: "" }).error).toMatchObject({ code: "invalid_field", field: "ticketId" });
    expect(sut(CreateEventDto, { ...CREATE_EVENT, ticketeerId: "" }).error).toMatchObject({ code: "invalid_field", field: "ticketeerId" });
  });

  it("refuses ids and amounts of the wrong JSON type instead of converting them", () => {
    expect(sut(SoldTicketDto, { ...SOLD, ticketId: 42 }).error).toMatchObject({ field: "ticketId" });
    expect(sut(SoldTicketDto, { ...SOLD, eventId: ["event-1"] }).error).toMatchObject({ field: "eventId" });
    expect(sut(SoldTicketDto, { ...SOLD, price: 49.95 }).error).toMatchObject({ field: "price" });
    expect(sut(SoldTicketDto, { ...SOLD, orderTime: "1.5" }).error).toMatchObject({ field: "orderTime" });
    expect(sut(NewEventDto, { ...NEW_EVENT, latitude: "52.1" }).error).toMatchObject({ field: "latitude" });
  });

  describe("defaults are left to the rules", () => {
    it("leaves every optional event field undefined", () => {
      const { value } = sut(NewEventDto, NEW_EVENT);
      for (const field of ["eventName", "ticketeerName", "ticketeerId", "shopUrl", "imageUrl", "latitude", "longitude", "startTime", "endTime"] as const) {
        expect(value?.[field], field).toBeUndefined();
      }
    });

    it("leaves orderTime and uri of a sale undefined", () => {
      const { value } = sut(SoldTicketDto, SOLD);
      expect(value?.orderTime).toBeUndefined();
      expect(value?.uri).toBeUndefined();
    });

    it("leaves unsent update fields undefined, so they are told apart from changes", () => {
      const { value } = sut(UpdateEventDto, { eventId: "event-1", callbackUrl: "https://integrator.example.com/new" });
      for (const field of ["eventName", "currency", "shopUrl", "imageUrl", "latitude", "longitude", "startTime", "endTime"] as const) {
        expect(value?.[field], field).toBeUndefined();
      }
    });

    it("treats null in an optional field as not sent", () => {
      const sold = sut(SoldTicketDto, { ...SOLD, orderTime: null, uri: null });
      expect(sold.error).toBeUndefined();
      expect(sold.value?.orderTime).toBeUndefined();
      expect(sold.value?.uri).toBeUndefined();
      const update = sut(UpdateEventDto, { eventId: "event-1", startTime: null, eventName: "Renamed" });
      expect(update.error).toBeUndefined();
      expect(update.value?.startTime).toBeUndefined();
      const created = sut(NewEventDto, { ...NEW_EVENT, ticketeerId: null, latitude: null });
      expect(created.value?.ticketeerId).toBeUndefined();
      expect(created.value?.latitude).toBeUndefined();
    });

    it("keeps uint64 values as sent, numbers or decimal strings", () => {
      const { value } = sut(NewEventDto, { ...NEW_EVENT, startTime: 1_900_000_000, endTime: "18446744073709551615" });
      expect(value?.startTime).toBe(1_900_000_000);
      expect(value?.endTime).toBe("18446744073709551615");
    });
  });

  describe("255 characters", () => {
    const text255 = "x".repeat(255);
    const text256 = "x".repeat(256);

    it.each([
      ["eventId", NewEventDto, NEW_EVENT],
      ["eventId", UpdateEventDto, { eventId: "e", eventName: "n" }],
      ["eventId", SoldTicketDto, SOLD],
      ["eventName", NewEventDto, NEW_EVENT],
      ["ticketeerName", NewEventDto, NEW_EVENT],
      ["ticketId", SoldTicketDto, SOLD],
      ["ticketId", ResoldTicketDto, { ticketId: "t", price: "1" }],
      ["ticketId", TicketMomentDto, { ticketId: "t" }],
      ["ticketId", UpdateTicketDto, { ticketId: "t", uri: "ipfs://x" }],
      ["ticketId", ClaimedTicketDto, { ticketId: "t", to: ADDRESS }],
    ] as const)("%s of %O: 255 taken, 256 refused", (field, dto, valid) => {
      expect(sut(dto as never, { ...valid, [field]: text255 }).error).toBeUndefined();
      expect(sut(dto as never, { ...valid, [field]: text256 }).error).toMatchObject({ code: "invalid_field", field });
    });

    it("eventId and ticketeerId of POST /events: 255 taken, 256 refused", () => {
      expect(sut(CreateEventDto, { ...CREATE_EVENT, eventId: text255, ticketeerId: text255 }).error).toBeUndefined();
      expect(sut(CreateEventDto, { ...CREATE_EVENT, eventId: text256 }).error).toMatchObject({ field: "eventId" });
      expect(sut(CreateEventDto, { ...CREATE_EVENT, ticketeerId: text256 }).error).toMatchObject({ field: "ticketeerId" });
    });

    it("eventName of an update: 255 taken, 256 refused", () => {
      expect(sut(UpdateEventDto, { eventId: "e", eventName: text255 }).error).toBeUndefined();
      expect(sut(UpdateEventDto, { eventId: "e", eventName: text256 }).error).toMatchObject({ field: "eventName" });
    });

    it("uri: 255 taken, 256 refused", () => {
      expect(sut(SoldTicketDto, { ...SOLD, uri: "ipfs://" + "a".repeat(248) }).error).toBeUndefined();
      expect(sut(SoldTicketDto, { ...SOLD, uri: "ipfs://" + "a".repeat(249) }).error).toMatchObject({ field: "uri" });
    });

    it("shopUrl: 255 taken, 256 refused", () => {
      const prefix = "https://shop.example.com/";
      expect(sut(NewEventDto, { ...NEW_EVENT, shopUrl: prefix + "a".repeat(255 - prefix.length) }).error).toBeUndefined();
      expect(sut(NewEventDto, { ...NEW_EVENT, shopUrl: prefix + "a".repeat(256 - prefix.length) }).error).toMatchObject({ field: "shopUrl" });
    });
  });

  describe("ids: one rule for every id field", () => {
    const ID_FIELDS = [
      ["eventId", CreateEventDto, CREATE_EVENT],
      ["ticketeerId", CreateEventDto, CREATE_EVENT],
      ["eventId", NewEventDto, NEW_EVENT],
      ["ticketeerId", NewEventDto, NEW_EVENT],
      ["eventId", UpdateEventDto, { eventId: "e", eventName: "n" }],
      ["eventId", SoldTicketDto, SOLD],
      ["ticketId", SoldTicketDto, SOLD],
      ["ticketId", ResoldTicketDto, { ticketId: "t", price: "1" }],
      ["ticketId", TicketMomentDto, { ticketId: "t" }],
      ["ticketId", UpdateTicketDto, { ticketId: "t", uri: "ipfs://x" }],
      ["ticketId", ClaimedTicketDto, { ticketId: "t", to: ADDRESS }],
    ] as const;
    const REFUSED = [
      "a\tb",
      "\u0001",
      "x\u007f",
      "x\u0085",
      "\u202Eabc",
      "a\u2067b",
      "\u200Ea",
      "a\u061C",
      "a\u200Bb",
      "a\u200Db",
      "\u2060",
      "\uFEFFa",
      ".",
      "..",
      "...",
    ];
    const TAKEN = ["𝄞".repeat(255), "🎫".repeat(255), "a b", "a/b", "%2F", "?#", ".a", "..a", "שלום", "e\u0301"];

    it.each(ID_FIELDS)("%s of %O refuses control, bidirectional and zero-width characters and ids of only dots", (field, dto, valid) => {
      for (const id of REFUSED) {
        const { error } = sut(dto as never, { ...valid, [field]: id });
        expect(error, JSON.stringify(id)).toMatchObject({ code: "invalid_field", field });
        expect(error?.message.startsWith(`${field} must not`), error?.message).toBe(true);
      }
    });

    it.each(ID_FIELDS)("%s of %O takes awkward ids up to 255 code points", (field, dto, valid) => {
      for (const id of TAKEN) expect(sut(dto as never, { ...valid, [field]: id }).error, JSON.stringify(id)).toBeUndefined();
    });
  });

  describe("a ticket's uri: https, ipfs and ar only", () => {
    it.each(["javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", "http://img.example.com/1.png", "file:///etc/passwd", "ftp://x/y"])(
      "refuses %s on a sale and an update, saying why",
      (uri) => {
        for (const [dto, valid] of [
          [SoldTicketDto, SOLD],
          [UpdateTicketDto, { ticketId: "t", uri: "ipfs://x" }],
        ] as const) {
          const { error } = sut(dto as never, { ...valid, uri });
          expect(error).toMatchObject({ code: "invalid_field", field: "uri" });
          expect(error?.message).toMatch(/^uri must be an https, ipfs:\/\/ or ar:\/\/ URI of at most 255 characters, or blank: ".+:" is refused, because/);
        }
      },
    );

    it.each(["https://img.example.com/1.png", "ipfs://bafy/1.json", "ar://Q2Wl1bnTgDRi0A9Q", ""])("takes %j", (uri) => {
      expect(sut(SoldTicketDto, { ...SOLD, uri }).error).toBeUndefined();
      expect(sut(UpdateTicketDto, { ticketId: "t", uri }).error).toBeUndefined();
    });
  });

  describe("coordinates", () => {
    it.each([-90, -45.5, 0, 1e-7, -5e-7, 52.3731, 90])("takes latitude %d", (latitude) => {
      expect(sut(NewEventDto, { ...NEW_EVENT, latitude }).error).toBeUndefined();
      expect(sut(UpdateEventDto, { eventId: "e", latitude }).error).toBeUndefined();
    });

    it.each([-90.0000001, 90.0000001, 91, -180, 1e3])("refuses latitude %d", (latitude) => {
      expect(sut(NewEventDto, { ...NEW_EVENT, latitude }).error).toEqual({
        code: "invalid_field",
        field: "latitude",
        message: "latitude must be a number from -90 to 90",
      });
    });

    it.each([-180, -90.5, 0, 3e-7, 4.8922, 180])("takes longitude %d", (longitude) => {
      expect(sut(NewEventDto, { ...NEW_EVENT, longitude }).error).toBeUndefined();
    });

    it.each([-180.0000001, 180.0000001, 360])("refuses longitude %d", (longitude) => {
      expect(sut(NewEventDto, { ...NEW_EVENT, longitude }).error).toEqual({
        code: "invalid_field",
        field: "longitude",
        message: "longitude must be a number from -180 to 180",
      });
    });
  });

  describe("URLs", () => {
    it("takes only https callback URLs", () => {
      expect(sut(NewEventDto, { ...NEW_EVENT, callbackUrl: "http://integrator.example.com/callbacks" }).error).toMatchObject({
        code: "invalid_field",
        field: "callbackUrl",
        message: "callbackUrl must be an https URL of at most 255 characters",
      });
      expect(sut(CreateEventDto, { ...CREATE_EVENT, callbackUrl: "http://integrator.example.com/callbacks" }).error).toMatchObject({ field: "callbackUrl" });
      expect(sut(UpdateEventDto, { eventId: "e", callbackUrl: "http://integrator.example.com/callbacks" }).error).toMatchObject({ field: "callbackUrl" });
      expect(sut(UpdateEventDto, { eventId: "e", callbackUrl: "https://integrator.example.com/callbacks" }).error).toBeUndefined();
    });

    it("takes http and https shop and image URLs, nothing else", () => {
      expect(sut(NewEventDto, { ...NEW_EVENT, shopUrl: "http://shop.example.com", imageUrl: "https://img.example.com/a.png" }).error).toBeUndefined();
      expect(sut(NewEventDto, { ...NEW_EVENT, imageUrl: "javascript:alert(1)" }).error).toMatchObject({ field: "imageUrl" });
      expect(sut(NewEventDto, { ...NEW_EVENT, shopUrl: "shop.example.com" }).error).toMatchObject({
        field: "shopUrl",
        message: "shopUrl must be an http or https URL of at most 255 characters, or blank",
      });
    });

    it("takes a blank shop or image URL or uri: blank is their default", () => {
      expect(sut(NewEventDto, { ...NEW_EVENT, shopUrl: "", imageUrl: "" }).error).toBeUndefined();
      expect(sut(UpdateTicketDto, { ticketId: "t", uri: "" }).error).toBeUndefined();
      expect(sut(NewEventDto, { ...NEW_EVENT, callbackUrl: "" }).error).toMatchObject({ field: "callbackUrl" });
    });
  });
});
