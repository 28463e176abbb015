import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { OrganizationsService } from "../../src/auth/organizations.service";

import { type ApiClient } from "../support/api-client";
import { eventBody, id, soldItem } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * GET /api/v1/usage against the real app and PostgreSQL, with no chain: what is accepted counts at
 * once; nothing is confirmed or charged (the chain files test those, test/chain/usage.e2e-spec.ts).
 * USAGE_MAX_RANGE_DAYS is 31 here, so the cap is reached with short ranges.
 */

let testApp: TestApp;
let alpha: { ticketeerId: string; api: ApiClient };
let beta: { ticketeerId: string; api: ApiClient };
const eventA = id("ev-usage-a");
const eventB = id("ev-usage-b");
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  testApp = await startTestApp({ USAGE_MAX_RANGE_DAYS: "31" });
  [alpha, beta] = await Promise.all([testApp.client(), testApp.client()]);
  for (const eventId of [eventA, eventB]) expect((await alpha.api.post("/api/v1/events", eventBody(eventId, alpha.ticketeerId))).status).toBe(200);
  const sold = await alpha.api.post(
    "/api/v1/sold",
    Array.from({ length: 3 }, () => soldItem(eventA, id("t"))),
  );
  expect(sold.body.map((item: { status: string }) => item.status)).toEqual(["success", "success", "success"]);
  const scanned = await alpha.api.post("/api/v1/scanned", [{ ticketId: sold.body[0].ticketId }]);
  expect(scanned.body[0].status).toBe("success");
});

afterAll(async () => {
  await testApp?.close();
});

const zero = { accepted: 0, confirmed: 0, failed: 0, transactions: 0, gas: "0", feeWei: "0" };
const accepted = (count: number) => ({ ...zero, accepted: count });

describe("GET /api/v1/usage", () => {
  it("counts the key's organization's accepted actions per day and kind, nothing confirmed or charged without a chain", async () => {
    const answer = await alpha.api.get(`/api/v1/usage?from=${today}&to=${today}`);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      ticketeerId: alpha.ticketeerId,
      from: `${today}T00:00:00.000Z`,
      to: new Date(Date.parse(today) + 86_400_000).toISOString(),
      groupBy: "day",
      groups: [
        {
          day: today,
          actions: [
            { kind: "newEvent", ...accepted(2) },
            { kind: "sold", ...accepted(3) },
            { kind: "scanned", ...accepted(1) },
          ],
          totals: accepted(6),
        },
      ],
      totals: accepted(6),
    });
  });

  it("groups by event, under each eventId", async () => {
    const answer = await alpha.api.get(`/api/v1/usage?from=${today}&to=${today}&groupBy=event`);

    expect(answer.status).toBe(200);
    const groups = [...answer.body.groups].sort((a: { eventId: string }, b: { eventId: string }) => (a.eventId < b.eventId ? -1 : 1));
    expect(answer.body.groups).toEqual(groups);
    expect(Object.fromEntries(groups.map((group: { eventId: string; totals: unknown }) => [group.eventId, group.totals]))).toEqual({
      [eventA]: accepted(5),
      [eventB]: accepted(1),
    });
  });

  it("shows another organization nothing of them", async () => {
    const answer = await beta.api.get(`/api/v1/usage?from=${today}&to=${today}&groupBy=event`);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ticketeerId: beta.ticketeerId, groups: [], totals: zero });
  });

  it("answers the same as CSV for Accept: text/csv", async () => {
    const response = await fetch(`${testApp.baseUrl}/api/v1/usage?from=${today}&to=${today}`, {
      headers: { "x-api-key": (await keyOf(alpha)).key, accept: "text/csv" },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("vary")).toMatch(/Accept/i);
    expect((await response.text()).split("\r\n")).toEqual([
      "day,kind,accepted,confirmed,failed,transactions,gas,feeWei",
      `${today},newEvent,2,0,0,0,0,0`,
      `${today},sold,3,0,0,0,0,0`,
      `${today},scanned,1,0,0,0,0,0`,
      `${today},total,6,0,0,0,0,0`,
      ",total,6,0,0,0,0,0",
      "",
    ]);
  });

  it("answers JSON when the client prefers it or accepts anything", async () => {
    for (const accept of ["application/json", "*/*", "application/json, text/csv;q=0.5"]) {
      const answer = await alpha.api.request("GET", `/api/v1/usage?from=${today}&to=${today}`, undefined, { accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers.get("content-type"), accept).toMatch(/^application\/json/);
    }
  });

  it("refuses bad input with 400 invalid_field naming the parameter, as JSON even when CSV was asked for", async () => {
    const cases: [query: string, field: string, message: RegExp][] = [
      [`to=${today}`, "from", /^from is required/],
      [`from=${today}`, "to", /^to is required/],
      [`from=yesterday&to=${today}`, "from", /^from must be an ISO 8601 date/],
      [`from=${today}&to=2026-02-30`, "to", /^to is not a date of the calendar: 2026-02-30$/],
      [`from=2026-03-02&to=2026-03-01`, "from", /^from must be before to/],
      [`from=2026-03-01&to=2026-04-01`, "to", /^to must be at most 31 days after from \(USAGE_MAX_RANGE_DAYS\)/],
      [`from=${today}&to=${today}&groupBy=week`, "groupBy", /^groupBy must be one of day, event$/],
      [`from=${today}&from=${today}&to=${today}`, "from", /^from must be given once$/],
    ];
    for (const [query, field, message] of cases) {
      const answer = await alpha.api.request("GET", `/api/v1/usage?${query}`, undefined, { accept: "text/csv" });
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toEqual({ status: "error", error: { code: "invalid_field", field, message: expect.stringMatching(message) } });
    }
  });

  it("takes the whole capped range, and date-times with offsets", async () => {
    const start = new Date(Date.parse(today) - 30 * 86_400_000).toISOString().slice(0, 10);
    expect((await alpha.api.get(`/api/v1/usage?from=${start}&to=${today}`)).body.totals).toEqual(accepted(6));
    const now = new Date();
    const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
    const inAMinute = encodeURIComponent(new Date(now.getTime() + 60_000).toISOString().replace("Z", "+00:00"));
    expect((await alpha.api.get(`/api/v1/usage?from=${hourAgo}&to=${inAMinute}`)).body.totals).toEqual(accepted(6));
  });

  it("is on the live Swagger document: its parameters, both answers' types and the statement's fields", async () => {
    const document = (await fetch(`${testApp.baseUrl}/docs-json`).then((response) => response.json())) as {
      paths: Record<string, { get: { parameters: { name: string; required: boolean }[]; responses: Record<string, { content: Record<string, unknown> }> } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const operation = document.paths["/api/v1/usage"].get;
    expect(operation.parameters.map(({ name, required }) => [name, required]).sort()).toEqual([
      ["from", true],
      ["groupBy", false],
      ["to", true],
    ]);
    expect(Object.keys(operation.responses["200"].content).sort()).toEqual(["application/json", "text/csv"]);
    expect(Object.keys(document.components.schemas.UsageCountsDto.properties)).toEqual(["accepted", "confirmed", "failed", "transactions", "gas", "feeWei"]);
    expect(Object.keys(document.components.schemas.UsageStatementDto.properties)).toEqual(["ticketeerId", "from", "to", "groupBy", "groups", "totals"]);
    const page = await fetch(`${testApp.baseUrl}/docs/`);
    expect(page.status).toBe(200);
  });

  it("refuses a request without a key with the spec's 403", async () => {
    const answer = await fetch(`${testApp.baseUrl}/api/v1/usage?from=${today}&to=${today}`);
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({ message: "Forbidden" });
  });
});

/** The key of a client made by testApp.client(): a second key of its organization, for raw fetches. */
async function keyOf(client: { ticketeerId: string }): Promise<{ key: string }> {
  return testApp.app.get(OrganizationsService).issueKey(client.ticketeerId, "csv");
}
