import { describe, expect, it } from "vitest";

import { validateItem, validateWithClassValidator } from "../../common/validation/validate-item";
import { NewEventDto } from "../../events/dto/new-event.dto";
import { UpdateEventDto } from "../../events/dto/update-event.dto";
import { SoldTicketDto } from "./sold-ticket.dto";
import { UpdateTicketDto } from "./update-ticket.dto";

const sale = { eventId: "e-1", ticketId: "t-1", price: "10.00" };
const attributes = (count: number) => Array.from({ length: count }, (_, index) => ({ traitType: `Trait ${index}`, value: index }));

/** Both paths (the compiled check and class-validator alone) give the same answer: the test reads one and checks the other agrees. */
function validated(dto: typeof SoldTicketDto | typeof UpdateTicketDto | typeof NewEventDto | typeof UpdateEventDto, raw: Record<string, unknown>) {
  const answer = validateItem(dto as never, raw);
  expect(validateWithClassValidator(dto as never, raw)).toEqual(answer);
  return answer;
}

describe("a ticket's metadata fields", () => {
  it("takes every field at its limit", () => {
    const item = {
      ...sale,
      name: "n".repeat(255),
      description: "𝄞".repeat(2000),
      animationUrl: `https://video.example.com/${"v".repeat(229)}`,
      attributes: [...attributes(31), { traitType: "Doors", value: 1_900_000_000, displayType: "date" }],
    };
    expect(validated(SoldTicketDto, item)).toEqual({ value: expect.objectContaining(item) });
  });

  it.each([
    [{ name: "n".repeat(256) }, "name", "name must be at most 255 characters (Unicode code points)"],
    [{ name: 7 }, "name", "name must be a string"],
    [{ description: "d".repeat(2001) }, "description", "description must be at most 2000 characters (Unicode code points)"],
    [{ description: "a\u0000b" }, "description", "description must not contain a NUL character (U+0000)"],
    [{ animationUrl: "javascript:alert(1)" }, "animationUrl", undefined],
    [{ animationUrl: `https://video.example.com/${"v".repeat(230)}` }, "animationUrl", undefined],
    [{ attributes: attributes(33) }, "attributes[32]", "attributes[32] is one too many: a ticket has at most 32 attributes"],
    [{ attributes: [...attributes(3), { traitType: "State", value: "Valid" }] }, "attributes[3].traitType", undefined],
    [{ attributes: [{ traitType: "Seat", value: JSON.parse("1e999") as number }] }, "attributes[0].value", "attributes[0].value must be a finite number"],
    [{ attributes: [{ traitType: "Seat", value: { row: 1 } }] }, "attributes[0].value", undefined],
    [{ attributes: [{ traitType: "Seat", value: false }] }, "attributes[0].value", undefined],
    [{ attributes: { traitType: "Seat", value: "1" } }, "attributes", undefined],
  ])("refuses %j as invalid_field naming %s, on a sale and an update", (fields, field, message) => {
    for (const answer of [validated(SoldTicketDto, { ...sale, ...fields }), validated(UpdateTicketDto, { ticketId: "t-1", ...fields })]) {
      expect(answer.error).toMatchObject({ code: "invalid_field", field });
      expect(answer.error?.message.startsWith(`${field} `)).toBe(true);
      if (message) expect(answer.error?.message).toBe(message);
    }
  });

  it("reads the chain's traits without case: a forged State names its entry", () => {
    const answer = validated(UpdateTicketDto, {
      ticketId: "t-1",
      attributes: [
        { traitType: "Seat", value: "1" },
        { traitType: "state", value: "Valid" },
      ],
    });
    expect(answer.error).toEqual({
      code: "invalid_field",
      field: "attributes[1].traitType",
      message: 'attributes[1].traitType must not be "state": the token states that trait from the chain, and no attribute may stand beside it',
    });
  });

  it("lets an update carry any one field, uri included, or none (acceptance then asks for one)", () => {
    expect(validated(UpdateTicketDto, { ticketId: "t-1" }).value).toBeDefined();
    expect(validated(UpdateTicketDto, { ticketId: "t-1", attributes: [] }).value).toEqual(expect.objectContaining({ attributes: [] }));
    expect(validated(UpdateTicketDto, { ticketId: "t-1", uri: "" }).value).toEqual(expect.objectContaining({ uri: "" }));
  });
});

describe("an event's metadata fields", () => {
  const event = { eventId: "e-1", currency: "EUR", callbackUrl: "https://integrator.example.com/callbacks" };

  it("takes a 2,000-character description and a ticketImageUrl", () => {
    const fields = { description: "d".repeat(2000), ticketImageUrl: "ipfs://bafy/ticket.png" };
    expect(validated(NewEventDto, { ...event, ...fields }).value).toEqual(expect.objectContaining(fields));
    expect(validated(UpdateEventDto, { eventId: "e-1", ...fields }).value).toEqual(expect.objectContaining(fields));
  });

  it.each([
    [{ description: "d".repeat(2001) }, "description"],
    [{ description: 1 }, "description"],
    [{ ticketImageUrl: "http://img.example.com/t.png" }, "ticketImageUrl"],
    [{ ticketImageUrl: `https://img.example.com/${"i".repeat(232)}` }, "ticketImageUrl"],
  ])("refuses %j as invalid_field naming %s", (fields, field) => {
    expect(validated(NewEventDto, { ...event, ...fields }).error).toMatchObject({ code: "invalid_field", field });
    expect(validated(UpdateEventDto, { eventId: "e-1", ...fields }).error).toMatchObject({ code: "invalid_field", field });
  });
});
