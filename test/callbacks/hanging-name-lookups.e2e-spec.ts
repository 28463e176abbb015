import { DataSource } from "typeorm";
import { afterAll, describe, expect, it } from "vitest";

import { callbackWhen, eventually, eventWithTickets, stream, uid, updateTickets } from "../support/callbacks-e2e";

import { SILENT, startTestDnsServer, type TestDnsServer } from "../support/test-dns-server";
import { useChainApp } from "../support/chain-app";

/**
 * One receiver whose name lookups never end, with thousands of callbacks due, costs only its own
 * delivery slots: another receiver's callbacks are all delivered at their first attempt meanwhile.
 * The app resolves the receivers' names (both allowed to be loopback) with a DNS server of the
 * test's own that answers one name with 127.0.0.1 and never answers the other, as a receiver's
 * broken or hostile DNS would. (Resolved with getaddrinfo, the hanging lookups filled Node's four
 * shared threads and every other receiver's lookups waited behind them until their attempts timed out.)
 */
const HANGS = "hangs.receivers.test";
const ANSWERS = "answers.receivers.test";
const HANGING_TICKETS = 2_000;
const ANSWERING_TICKETS = 20;
const TIMEOUT_MS = 5_000;
const DNS_TIMEOUT_MS = 1_000;

let dns: TestDnsServer;

const chainApp = useChainApp({
  receiver: true,
  env: async () => {
    dns = await startTestDnsServer({ [ANSWERS]: { a: ["127.0.0.1"] }, [HANGS]: SILENT });
    return {
      CALLBACK_ALLOW_HOSTS: `${ANSWERS},${HANGS}`,
      CALLBACK_DNS_SERVERS: dns.address,
      CALLBACK_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS),
      CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
      CALLBACK_LEASE_MS: "20000",
    };
  },
});

afterAll(async () => {
  await dns?.close();
});

const urlOf = (host: string, path: string) => `https://${host}:${chainApp.receiver.port}${path}`;

/** The callbacks to a host: how many, in which status, how many were attempted, and the errors of their attempts. */
async function callbacksTo(host: string): Promise<{ total: number; pending: number; attempted: number; errors: string[] }> {
  const sql = chainApp.testApp.app.get(DataSource);
  const [counts] = await sql.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE c.status = 'pending')::int AS pending, count(*) FILTER (WHERE c.attempts > 0)::int AS attempted
       FROM callbacks c JOIN events e ON e.id = c.event_ref WHERE e.callback_url LIKE $1`,
    [`https://${host}:%`],
  );
  const errors = await sql.query(`SELECT DISTINCT coalesce(error, status_code::text) AS error FROM callback_attempts WHERE url LIKE $1 ORDER BY 1`, [
    `https://${host}:%`,
  ]);
  return { ...counts, errors: errors.map((row: { error: string }) => row.error) };
}

describe("a receiver whose name lookups hang", () => {
  it("costs only its own slots: another receiver's callbacks are all delivered at their first attempt meanwhile", async () => {
    const hangingEvent = uid("event");
    await stream(chainApp.api, [
      { action: "newEvent", data: { eventId: hangingEvent, eventName: "Hanging", currency: "EUR", callbackUrl: urlOf(HANGS, "/hooks") } },
      ...Array.from({ length: HANGING_TICKETS }, () => ({
        action: "soldTicket",
        data: { eventId: hangingEvent, ticketId: uid("ticket"), price: "10.00", orderTime: 1_750_000_000 },
      })),
    ]);
    // Its sales confirmed (a callback each, all due) and a full share of its slots given up on at least once.
    await eventually(
      async () => {
        const hanging = await callbacksTo(HANGS);
        return hanging.total === HANGING_TICKETS + 1 && hanging.attempted >= 400 ? hanging : undefined;
      },
      180_000,
      "the hanging receiver's callbacks, due and attempted",
    );

    const answering = await eventWithTickets(chainApp.api, urlOf(ANSWERS, "/hooks"), ANSWERING_TICKETS);
    const updates = await updateTickets(chainApp.api, answering.ticketIds);
    const views = await Promise.all(
      [...answering.promises, ...updates].map((promise) =>
        callbackWhen(chainApp.api, answering.eventId, promise, (view) => view.status !== "pending" || view.attempts > 1, 60_000),
      ),
    );
    expect(views.filter((view) => view.status !== "delivered" || view.attempts !== 1)).toEqual([]);
    expect(chainApp.receiver.requests("/hooks")).toHaveLength(views.length);
    expect((await callbacksTo(ANSWERS)).errors).toEqual(["204"]);

    const hanging = await callbacksTo(HANGS);
    expect(hanging).toMatchObject({ total: HANGING_TICKETS + 1, pending: HANGING_TICKETS + 1 });
    expect(hanging.errors).toEqual([`name lookup for ${HANGS} took longer than ${DNS_TIMEOUT_MS} ms`]);
    expect(dns.queries(HANGS).length).toBeGreaterThan(0);
  });
});
