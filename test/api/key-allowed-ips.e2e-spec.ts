import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { OrganizationsService } from "../../src/auth/organizations.service";
import { apiClient } from "../support/api-client";
import { eventBody, id, soldItem } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * A key bound to IP ranges (`key create --allow-ip`) against the real app: a request from elsewhere
 * gets 403 {"message":"Forbidden","code":"key_ip"} before its body is read, and nothing of it is
 * applied. The client address is the one Express reads: the socket's peer, or, from a proxy in
 * TRUST_PROXY, its X-Forwarded-For; a forwarded address from anybody else is not believed.
 */
const FORBIDDEN_IP = { message: "Forbidden", code: "key_ip" };

let direct: TestApp;
let proxied: TestApp;

beforeAll(async () => {
  [direct, proxied] = await Promise.all([startTestApp(), startTestApp({ TRUST_PROXY: "loopback" })]);
});

afterAll(async () => {
  await Promise.all([direct?.close(), proxied?.close()]);
});

/** An organization with an unbound full key, and a key of `scope` bound to `ranges`. */
async function organizationWithBoundKey(testApp: TestApp, ranges: string[], scope: "full" | "scan" = "full") {
  const organization = await testApp.organization();
  const bound = await testApp.app.get(OrganizationsService).issueKey(organization.ticketeerId, "door", { scope, allowedIps: ranges });
  const eventId = id("ev-ip");
  const free = apiClient(testApp.baseUrl, organization.key);
  expect((await free.post("/api/v1/events", eventBody(eventId, organization.ticketeerId))).status).toBe(200);
  return { ...organization, eventId, free, bound, boundApi: (headers: Record<string, string> = {}) => boundClient(testApp, bound.key, headers) };
}

function boundClient(testApp: TestApp, key: string, headers: Record<string, string>) {
  const api = apiClient(testApp.baseUrl, key);
  return {
    get: (path: string) => api.request("GET", path, undefined, headers),
    post: (path: string, body: unknown) => api.request("POST", path, body, headers),
  };
}

async function lastUsedOf(testApp: TestApp, ticketeerId: string, prefix: string): Promise<Date | null> {
  const keys = await testApp.app.get(OrganizationsService).listKeys(ticketeerId);
  return keys.find((key) => key.prefix === prefix)!.lastUsedAt;
}

describe("a key bound to IP ranges, the service reached directly", () => {
  it("serves the key from inside its ranges, and records its last use", async () => {
    const org = await organizationWithBoundKey(direct, ["127.0.0.0/8", "2001:db8::/32"]);
    expect(await lastUsedOf(direct, org.ticketeerId, org.bound.prefix)).toBeNull();

    const ticketId = id("t");
    const sold = await org.boundApi().post("/api/v1/sold", [soldItem(org.eventId, ticketId)]);

    expect(sold.status).toBe(200);
    expect(sold.body[0]).toMatchObject({ ticketId, status: "success" });
    expect(await lastUsedOf(direct, org.ticketeerId, org.bound.prefix)).toBeInstanceOf(Date);
  });

  it("refuses it from outside its ranges before reading the body, applies nothing, and records no use", async () => {
    const org = await organizationWithBoundKey(direct, ["203.0.113.0/24"]);
    const ticketId = id("t");

    // X-Forwarded-For from a peer that is no trusted proxy says nothing of the client.
    const attempts: Record<string, string>[] = [{}, { "x-forwarded-for": "203.0.113.7" }];
    for (const headers of attempts) {
      const sale = await org.boundApi(headers).post("/api/v1/sold", [soldItem(org.eventId, ticketId)]);
      expect({ status: sale.status, body: sale.body }, JSON.stringify(headers)).toStrictEqual({ status: 403, body: FORBIDDEN_IP });
      expect(sale.headers.get("connection")).toBe("close");
      const read = await org.boundApi(headers).get(`/api/v1/events/${org.eventId}`);
      expect({ status: read.status, body: read.body }).toStrictEqual({ status: 403, body: FORBIDDEN_IP });
    }

    expect((await org.free.get(`/api/v1/tickets/${ticketId}`)).status).toBe(404);
    expect(await lastUsedOf(direct, org.ticketeerId, org.bound.prefix)).toBeNull();
  });

  it("checks the ranges before the scope: a scan key from elsewhere is refused key_ip whatever it asks", async () => {
    const org = await organizationWithBoundKey(direct, ["198.51.100.0/24"], "scan");

    const sale = await org.boundApi().post("/api/v1/sold", [soldItem(org.eventId, id("t"))]);
    const scan = await org.boundApi().post("/api/v1/scanned", [{ ticketId: id("t") }]);

    expect([sale.body, scan.body]).toStrictEqual([FORBIDDEN_IP, FORBIDDEN_IP]);
  });
});

describe("a key bound to IP ranges, behind a trusted proxy (TRUST_PROXY)", () => {
  it("matches the client address the proxy forwards, of either family", async () => {
    const org = await organizationWithBoundKey(proxied, ["203.0.113.0/24", "2001:db8:1::/48"]);

    for (const client of ["203.0.113.7", "2001:db8:1:ff::5", "::ffff:203.0.113.8"]) {
      const answer = await org.boundApi({ "x-forwarded-for": client }).get(`/api/v1/events/${org.eventId}`);
      expect(answer.status, client).toBe(200);
    }
    // The client is the address the trusted proxy saw: the first one it did not trust, from the right.
    const chained = await org.boundApi({ "x-forwarded-for": "192.0.2.1, 203.0.113.9" }).get(`/api/v1/events/${org.eventId}`);
    expect(chained.status).toBe(200);
  });

  it("refuses a client outside the ranges, and a request the proxy did not forward (the proxy itself is no client of the key)", async () => {
    const org = await organizationWithBoundKey(proxied, ["203.0.113.0/24"]);

    const attempts: Record<string, string>[] = [{ "x-forwarded-for": "198.51.100.1" }, { "x-forwarded-for": "203.0.113.9, 198.51.100.1" }, {}];
    for (const headers of attempts) {
      const answer = await org.boundApi(headers).get(`/api/v1/events/${org.eventId}`);
      expect({ status: answer.status, body: answer.body }, JSON.stringify(headers)).toStrictEqual({ status: 403, body: FORBIDDEN_IP });
    }
  });
});
