import { DataSource } from "typeorm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type AttemptResult, CallbackOutboxStore, type ClaimedCallback, type ReceiverShares } from "../../src/callbacks/callback-outbox.store";
import { CallbacksStore } from "../../src/callbacks/callbacks.store";
import { receiverOf, receiverSql } from "../../src/ledger/callback-receiver";
import { uuidv7 } from "../../src/common/uuid-v7";
import { EventsStore } from "../../src/events/events.store";
import { ActionRecorder, type ActionEntry } from "../../src/ledger/action-recorder";
import { insertCallbacks } from "../../src/ledger/outbox";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

const RECEIVER_A = "https://a.example.com";
const RECEIVER_B = "https://b.example.com";
const LEASE_MS = 60_000;
/** No receiver is held back. */
const ANY_SHARE: ReceiverShares = { full: [], inFlight: [], idleRoom: 1_000 };

let db: StoreDatabase;
let outbox: CallbackOutboxStore;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  outbox = new CallbackOutboxStore(db.dataSource);
  organizationId = await db.organization("ticketeer-a");
  otherOrganizationId = await db.organization("ticketeer-b");
});

afterAll(async () => {
  await outbox?.closeClaims();
  await db?.close();
});

// Every claim reads the whole outbox: each test starts from an empty one.
beforeEach(async () => {
  await db.dataSource.query(`DELETE FROM callbacks`);
});

async function newEvent(callbackUrl: string, owner = organizationId): Promise<{ eventRef: string; eventId: string }> {
  const eventRef = uuidv7();
  const eventId = `event-${eventRef.slice(-12)}`;
  await db.dataSource.query(`INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, $3, 'EUR', $4)`, [
    eventRef,
    owner,
    eventId,
    callbackUrl,
  ]);
  return { eventRef, eventId };
}

async function newTicket(eventRef: string): Promise<string> {
  const ticketRef = uuidv7();
  await db.dataSource.query(
    `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, order_time)
     VALUES ($1, $2, $3, $4, 1, (random() * 1e15)::numeric(39, 0), '10.00', 0)`,
    [ticketRef, organizationId, eventRef, `ticket-${ticketRef.slice(-12)}`],
  );
  return ticketRef;
}

/** Records actions through the ledger's own recorder, as an acceptance does; those with nothing on chain get their callback at once. */
async function record(entries: Omit<ActionEntry, "eventIndex">[], owner = organizationId): Promise<string[]> {
  return db.dataSource.transaction(async (manager) => {
    const recorder = new ActionRecorder(manager, owner, "request-7");
    const ids = entries.map((entry) => recorder.record({ ...entry, eventIndex: 1n }));
    await recorder.flush();
    return ids;
  });
}

async function callbackOf(actionId: string): Promise<string> {
  const [row] = await db.dataSource.query<{ id: string }[]>(`SELECT id FROM callbacks WHERE action_id = $1`, [actionId]);
  return row.id;
}

/** A due event callback to `callbackUrl`, on an event of its own so that no earlier action holds it back. */
async function dueCallback(callbackUrl = `${RECEIVER_A}/hooks`, owner = organizationId): Promise<string> {
  const { eventRef } = await newEvent(callbackUrl, owner);
  const [actionId] = await record([{ kind: "updateEvent", requestedAs: "updateEvent", eventRef, ticketRef: null, onChain: null }], owner);
  return callbackOf(actionId);
}

async function dueCallbacks(count: number, callbackUrl?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await dueCallback(callbackUrl));
  return ids;
}

function ids(claimed: ClaimedCallback[]): string[] {
  return claimed.map((callback) => callback.id).sort();
}

function result(callback: ClaimedCallback, outcome: Pick<AttemptResult, "status" | "statusCode" | "error" | "nextAttemptAt">): AttemptResult {
  return { callbackId: callback.id, startedAt: new Date("2026-01-01T10:00:00Z"), durationMs: 42, url: callback.callbackUrl, ...outcome };
}

interface CallbackState {
  status: string;
  attempts: number;
  leased: boolean;
  next_attempt_at: Date;
  delivered_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

async function stateOf(callbackId: string): Promise<CallbackState> {
  const [row] = await db.dataSource.query<CallbackState[]>(
    `SELECT status, attempts, leased_until > now() AS leased, next_attempt_at, delivered_at, last_status_code, last_error FROM callbacks WHERE id = $1`,
    [callbackId],
  );
  return row;
}

describe("CallbackOutboxStore: claims", () => {
  it("leases due callbacks with what their delivery needs, and hands none of them out again while the lease runs", async () => {
    const { eventRef } = await newEvent(`${RECEIVER_A}/hooks?token=t`);
    const [actionId] = await record([{ kind: "updateEvent", requestedAs: "updateEvent", eventRef, ticketRef: null, onChain: null }]);
    const other = await dueCallback();

    const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);

    expect(ids(claimed)).toEqual([await callbackOf(actionId), other].sort());
    const mine = claimed.find((callback) => callback.actionId === actionId)!;
    expect(mine).toMatchObject({
      requestId: "request-7",
      organizationId,
      attempts: 0,
      callbackUrl: `${RECEIVER_A}/hooks?token=t`,
      payload: { action: "updateEvent", actionPromise: actionId },
    });
    expect(mine.createdAt).toBeInstanceOf(Date);
    const [lease] = await db.dataSource.query<
      {
        seconds: string;
      }[]
    >(`SELECT extract(epoch FROM leased_until - now()) AS seconds FROM callbacks WHERE id = $1`, [mine.id]);
    expect(Number(lease.seconds)).toBeGreaterThan(55);
    expect(Number(lease.seconds)).toBeLessThanOrEqual(60);
    expect(await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).toEqual([]);
  });

  it("takes no more than asked, the longest due first", async () => {
    const [first, second, third] = await dueCallbacks(3);
    await db.dataSource.query(`UPDATE callbacks SET next_attempt_at = now() - make_interval(secs => $2) WHERE id = $1`, [third, 30]);
    await db.dataSource.query(`UPDATE callbacks SET next_attempt_at = now() - make_interval(secs => $2) WHERE id = $1`, [first, 20]);

    expect(ids(await outbox.claimDue(2, LEASE_MS, ANY_SHARE))).toEqual([first, third].sort());
    expect(ids(await outbox.claimDue(2, LEASE_MS, ANY_SHARE))).toEqual([second]);
  });

  it("hands a callback out again once its lease has run out: a killed worker's callbacks are not lost", async () => {
    const [callbackId] = await dueCallbacks(1);
    await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    await db.dataSource.query(`UPDATE callbacks SET leased_until = now() - interval '1 second' WHERE id = $1`, [callbackId]);

    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([callbackId]);
  });

  it("skips, without waiting, the callbacks another claimer has locked and not yet leased", async () => {
    const [locked, free] = await dueCallbacks(2);
    const other = db.dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      await other.query(`SELECT id FROM callbacks WHERE id = $1 FOR UPDATE`, [locked]);

      expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([free]);
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([locked]);
  });

  it("leases a batch in one claim, skipping the one in the middle that another claimer holds", async () => {
    const created = await dueCallbacks(5);
    const other = db.dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      await other.query(`SELECT id FROM callbacks WHERE id = $1 FOR UPDATE`, [created[2]]);

      const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);

      expect(ids(claimed)).toEqual(created.filter((id) => id !== created[2]).sort());
      for (const id of ids(claimed)) expect(await stateOf(id)).toMatchObject({ status: "pending", attempts: 0, leased: true });
      expect(await stateOf(created[2])).toMatchObject({ leased: null });
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([created[2]]);
  });

  it("leases nothing when the claim fails, and leaves no connection in a transaction", async () => {
    const created = await dueCallbacks(3);
    await outbox.claimDue(10, LEASE_MS, { ...ANY_SHARE, full: [RECEIVER_A] });

    // A negative LIMIT fails the claim statement on the claims' own connection, opened above.
    await expect(outbox.claimDue(-1, LEASE_MS, ANY_SHARE)).rejects.toThrow(/LIMIT/);

    const [open] = await db.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    expect(open.n).toBe(0);
    for (const id of created) expect(await stateOf(id)).toMatchObject({ leased: null });
    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([...created].sort());
  });

  it("claims with JIT off on a connection of its own, and returns it to the pool without that setting", async () => {
    await dueCallbacks(2);
    // A pool of one connection: the claims' connection is the one every other query gets afterwards.
    const single = await new DataSource({ ...db.dataSource.options, extra: { max: 1 } }).initialize();
    const store = new CallbackOutboxStore(single);
    try {
      const before = await single.query<{ jit: string }[]>(`SELECT current_setting('jit') AS jit`);
      expect(await store.claimDue(1, LEASE_MS, ANY_SHARE)).toHaveLength(1);
      expect(await store.claimDue(1, LEASE_MS, ANY_SHARE)).toHaveLength(1);
      await store.closeClaims();

      expect(await single.query<{ jit: string }[]>(`SELECT current_setting('jit') AS jit`)).toEqual(before);
    } finally {
      await store.closeClaims();
      await single.destroy();
    }
  });

  it("never leases one callback to two claimers running at the same time", async () => {
    const created = await dueCallbacks(30);
    const secondConnection = await new DataSource({ ...db.dataSource.options }).initialize();
    const second = new CallbackOutboxStore(secondConnection);
    try {
      const claimers = [outbox, second];
      for (let round = 0; round < 3; round++) {
        await db.dataSource.query(`UPDATE callbacks SET leased_until = NULL`);

        const [a, b] = await Promise.all(claimers.map((claimer) => claimer.claimDue(30, LEASE_MS, ANY_SHARE)));

        expect(ids(a).filter((id) => ids(b).includes(id))).toEqual([]);
        expect([...ids(a), ...ids(b)].sort()).toEqual([...created].sort());
      }
    } finally {
      await second.closeClaims();
      await secondConnection.destroy();
    }
  });
});

describe("CallbackOutboxStore: receiver shares", () => {
  it("computes a receiver in SQL exactly as the dispatcher does", async () => {
    const urls = [
      "HTTPS://Hooks.Example.COM:8443/Path?token=Secret#x",
      "https://user:pw@hooks.example.com/a",
      "http://h.example.com",
      "Not A URL",
      "https://h.example.com?q=1",
    ];
    for (const url of urls) {
      const [row] = await db.dataSource.query<{ receiver: string }[]>(`SELECT ${receiverSql("$1::text")} AS receiver`, [url]);
      expect(row.receiver, url).toBe(receiverOf(url));
    }
  });

  it("leaves out full receivers, and gives no receiver more than its room", async () => {
    const toA = await dueCallbacks(5, `${RECEIVER_A}/one`);
    const toB = await dueCallbacks(5, `HTTPS://B.example.com/two?x=1`);
    const toC = await dueCallbacks(2, "https://c.example.com/three");

    const first = await outbox.claimDue(20, LEASE_MS, { full: [RECEIVER_A], inFlight: [{ receiver: RECEIVER_B, room: 2 }], idleRoom: 1 });

    expect(first.filter((callback) => toA.includes(callback.id))).toHaveLength(0);
    expect(first.filter((callback) => toB.includes(callback.id))).toHaveLength(2);
    expect(first.filter((callback) => toC.includes(callback.id))).toHaveLength(1);

    const second = await outbox.claimDue(20, LEASE_MS, { full: [], inFlight: [], idleRoom: 3 });

    expect(second.filter((callback) => toA.includes(callback.id))).toHaveLength(3);
    expect(second.filter((callback) => toB.includes(callback.id))).toHaveLength(3);
    expect(second.filter((callback) => toC.includes(callback.id))).toHaveLength(1);
  });
  it("claims the others' callbacks in due order past a full receiver's backlog, and lets no receiver short of room crowd out the rest", async () => {
    const backlog = await dueCallbacks(30, `${RECEIVER_A}/stalled`);
    const toB = await dueCallbacks(4, `${RECEIVER_B}/b`);
    const toC = await dueCallbacks(4, "https://c.example.com/c");
    // Due order: A's backlog first, then B's four, then C's four; within each, in the order written.
    await dueSince([...backlog, ...toB, ...toC]);

    const first = await outbox.claimDue(3, LEASE_MS, { full: [RECEIVER_A], inFlight: [{ receiver: RECEIVER_B, room: 1 }], idleRoom: 10 });

    expect(ids(first)).toEqual([toB[0], toC[0], toC[1]].sort());
    const second = await outbox.claimDue(10, LEASE_MS, { full: [RECEIVER_A], inFlight: [], idleRoom: 10 });
    expect(ids(second)).toEqual([...toB.slice(1), ...toC.slice(2)].sort());
    expect(await outbox.claimDue(10, LEASE_MS, { full: [RECEIVER_A], inFlight: [], idleRoom: 10 })).toEqual([]);
  });

  it("sends an event's waiting callbacks to its new callbackUrl's receiver, and counts them against it", async () => {
    const { eventId } = await newEvent(`${RECEIVER_A}/old`);
    const [pending, failed] = await dueCallbacksOf(eventId, 2);
    await db.dataSource.query(`UPDATE callbacks SET status = 'failed' WHERE id = $1`, [failed]);

    await changeCallbackUrl(eventId, `${RECEIVER_B}/new`);

    expect(await outbox.claimDue(10, LEASE_MS, { full: [RECEIVER_B], inFlight: [], idleRoom: 10 })).toEqual([]);
    expect(await outbox.scheduleRedelivery(organizationId, failed)).toBe("queued");
    expect(await outbox.claimDue(10, LEASE_MS, { full: [RECEIVER_B], inFlight: [], idleRoom: 10 })).toEqual([]);
    const claimed = await outbox.claimDue(10, LEASE_MS, { full: [RECEIVER_A], inFlight: [{ receiver: RECEIVER_B, room: 1 }], idleRoom: 10 });
    expect(claimed).toHaveLength(1);
    expect(claimed[0].callbackUrl).toBe(`${RECEIVER_B}/new`);
    expect([pending, failed]).toContain(claimed[0].id);
  });
});

/** Makes the callbacks due one millisecond apart, in the order given, the first an hour ago. */
async function dueSince(callbackIds: string[]): Promise<void> {
  await db.dataSource.query(
    `UPDATE callbacks c SET next_attempt_at = now() - interval '1 hour' + make_interval(secs => o.n / 1000.0)
       FROM unnest($1::uuid[]) WITH ORDINALITY AS o(id, n) WHERE c.id = o.id`,
    [callbackIds],
  );
}

/** `count` due event callbacks of one event (updateEvent, nothing on chain), acknowledged so that none holds the next back. */
async function dueCallbacksOf(eventId: string, count: number): Promise<string[]> {
  const [{ id: eventRef }] = await db.dataSource.query<{ id: string }[]>(`SELECT id FROM events WHERE event_id = $1`, [eventId]);
  const callbackIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const [actionId] = await record([{ kind: "updateEvent", requestedAs: "updateEvent", eventRef, ticketRef: null, onChain: null }]);
    callbackIds.push(await callbackOf(actionId));
    await db.dataSource.query(`UPDATE callbacks SET attempts = 1 WHERE id = $1`, [callbackIds[i]]);
  }
  return callbackIds;
}

/** Changes the event's callbackUrl as an accepted updateEvent does: through the events repository, in a transaction. */
async function changeCallbackUrl(eventId: string, callbackUrl: string): Promise<void> {
  await db.dataSource.transaction(async (manager) => {
    const events = new EventsStore(manager);
    const event = (await events.findByOrganizationAndEventId(organizationId, eventId))!;
    event.callbackUrl = callbackUrl;
    await events.saveChanges([event]);
  });
}

describe("CallbackOutboxStore: a ticket's order", () => {
  it("holds a callback back while an earlier action of its ticket is on its way to the chain, or its callback has had no attempt", async () => {
    const { eventRef } = await newEvent(`${RECEIVER_A}/order`);
    const ticketRef = await newTicket(eventRef);
    const [sold, updated] = await record([
      {
        kind: "sold",
        requestedAs: "sold",
        eventRef,
        ticketRef,
        onChain: { action: "sold", tokenId: 5n, ticketHash: "0x" + "ab".repeat(32), price: "10.00", orderTime: 1n },
      },
      { kind: "updateTicket", requestedAs: "updateTicket", eventRef, ticketRef, onChain: null },
    ]);
    const elsewhere = await dueCallback();

    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([elsewhere]);

    await db.dataSource.transaction(async (manager) => {
      await manager.query(`UPDATE chain_actions SET status = 'confirmed', tx_hash = '0xfeed', block_number = 7 WHERE id = $1`, [sold]);
      await insertCallbacks(manager, [sold], 80002n, "0x00000000000000000000000000000000000000aa");
    });
    const [soldCallback] = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    expect(soldCallback.id).toBe(await callbackOf(sold));
    expect(await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).toEqual([]);

    await outbox.recordAttempts([result(soldCallback, { status: "pending", statusCode: 500, error: null, nextAttemptAt: new Date(Date.now() + 3_600_000) })]);

    expect(ids(await outbox.claimDue(10, LEASE_MS, ANY_SHARE))).toEqual([await callbackOf(updated)]);
  });
});

describe("CallbackOutboxStore: results and redelivery", () => {
  it("writes each attempt to the log and the callback's new state, and ends the lease", async () => {
    await dueCallbacks(3);
    const [delivered, gone, retried] = (await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).sort((a, b) => a.id.localeCompare(b.id));
    const retryAt = new Date(Date.now() + 3_600_000);
    const [before] = await db.dataSource.query<{ next_attempt_at: Date }[]>(`SELECT next_attempt_at FROM callbacks WHERE id = $1`, [delivered.id]);

    await outbox.recordAttempts([
      result(delivered, { status: "delivered", statusCode: 204, error: null, nextAttemptAt: null }),
      result(gone, { status: "failed", statusCode: 410, error: null, nextAttemptAt: null }),
      result(retried, { status: "pending", statusCode: null, error: "no answer within 15000 ms", nextAttemptAt: retryAt }),
    ]);

    expect(await stateOf(delivered.id)).toEqual({
      status: "delivered",
      attempts: 1,
      leased: null,
      next_attempt_at: before.next_attempt_at,
      delivered_at: expect.any(Date),
      last_status_code: 204,
      last_error: null,
    });
    expect(await stateOf(gone.id)).toMatchObject({ status: "failed", attempts: 1, leased: null, delivered_at: null, last_status_code: 410 });
    expect(await stateOf(retried.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      leased: null,
      next_attempt_at: retryAt,
      last_status_code: null,
      last_error: "no answer within 15000 ms",
    });
    const log = await db.dataSource.query<unknown[]>(
      `SELECT callback_id, started_at, duration_ms, url, status_code, error FROM callback_attempts WHERE callback_id = $1`,
      [retried.id],
    );
    expect(log).toEqual([
      {
        callback_id: retried.id,
        started_at: new Date("2026-01-01T10:00:00Z"),
        duration_ms: 42,
        url: retried.callbackUrl,
        status_code: null,
        error: "no answer within 15000 ms",
      },
    ]);
    expect(await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).toEqual([]);
  });

  it("records a batch whole or not at all: a result that cannot be written, in the middle, leaves every callback leased and unlogged", async () => {
    await dueCallbacks(3);
    const [first, second, third] = (await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).sort((a, b) => a.id.localeCompare(b.id));
    // A result the table refuses (a status its check does not allow) fails the statement.
    const batch = [
      result(first, { status: "delivered", statusCode: 204, error: null, nextAttemptAt: null }),
      result(second, { status: "bogus" as AttemptResult["status"], statusCode: 204, error: null, nextAttemptAt: null }),
      result(third, { status: "pending", statusCode: 500, error: null, nextAttemptAt: new Date(Date.now() + 60_000) }),
    ];

    await expect(outbox.recordAttempts(batch)).rejects.toThrow(/callbacks_status_check/);

    for (const callback of [first, second, third]) expect(await stateOf(callback.id)).toMatchObject({ status: "pending", attempts: 0, leased: true });
    const [logged] = await db.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM callback_attempts`);
    expect(logged.n).toBe(0);

    await outbox.recordAttempts([batch[0], result(second, { status: "failed", statusCode: 410, error: null, nextAttemptAt: null }), batch[2]]);
    expect(await stateOf(first.id)).toMatchObject({ status: "delivered", attempts: 1, leased: null, last_status_code: 204 });
    expect(await stateOf(second.id)).toMatchObject({ status: "failed", attempts: 1, leased: null, last_status_code: 410 });
    expect(await stateOf(third.id)).toMatchObject({ status: "pending", attempts: 1, leased: null, last_status_code: 500 });
    const attempts = await db.dataSource.query<{ callback_id: string; status_code: number }[]>(
      `SELECT callback_id, status_code FROM callback_attempts ORDER BY callback_id`,
    );
    expect(attempts).toEqual(
      [
        { callback_id: first.id, status_code: 204 },
        { callback_id: second.id, status_code: 410 },
        { callback_id: third.id, status_code: 500 },
      ].sort((a, b) => a.callback_id.localeCompare(b.callback_id)),
    );
  });

  it("records nothing for an empty batch", async () => {
    await expect(outbox.recordAttempts([])).resolves.toBeUndefined();
  });

  it("counts every attempt", async () => {
    const [callbackId] = await dueCallbacks(1);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [claimed] = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
      expect(claimed).toMatchObject({ id: callbackId, attempts: attempt - 1 });
      await outbox.recordAttempts([result(claimed, { status: "pending", statusCode: 503, error: null, nextAttemptAt: new Date(Date.now() - 1_000) })]);
    }
    expect(await stateOf(callbackId)).toMatchObject({ status: "pending", attempts: 3 });
  });

  it("makes a failed callback due again with a fresh count, for its own organization only", async () => {
    await dueCallbacks(1);
    const [claimed] = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    await outbox.recordAttempts([result(claimed, { status: "failed", statusCode: 410, error: null, nextAttemptAt: null })]);

    expect(await outbox.scheduleRedelivery(otherOrganizationId, claimed.id)).toBe("not_found");
    expect(await outbox.scheduleRedelivery(organizationId, "not-a-uuid")).toBe("not_found");
    expect(await outbox.scheduleRedelivery(organizationId, uuidv7())).toBe("not_found");
    expect(await stateOf(claimed.id)).toMatchObject({ status: "failed", attempts: 1 });

    expect(await outbox.scheduleRedelivery(organizationId, claimed.id.toUpperCase())).toBe("queued");

    expect(await stateOf(claimed.id)).toMatchObject({ status: "pending", attempts: 0, leased: null });
    expect(await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).toEqual([expect.objectContaining({ id: claimed.id, attempts: 0 })]);
  });
});

describe("CallbacksStore", () => {
  const store = () => new CallbacksStore(db.dataSource);

  it("lists an organization's callbacks newest first, narrowed by status and event, with their attempt logs", async () => {
    const { eventRef, eventId } = await newEvent(`${RECEIVER_B}/log`);
    const [older, newer] = await record([
      { kind: "updateEvent", requestedAs: "updateEvent", eventRef, ticketRef: null, onChain: null },
      { kind: "updateEvent", requestedAs: "updateEvent", eventRef, ticketRef: null, onChain: null },
    ]);
    await dueCallback(`${RECEIVER_B}/another-event`);
    await dueCallback(`${RECEIVER_B}/another-organization`, otherOrganizationId);
    const [first] = await outbox.claimDue(1, LEASE_MS, ANY_SHARE);
    expect(first.actionId).toBe(older);
    await outbox.recordAttempts([result(first, { status: "delivered", statusCode: 200, error: null, nextAttemptAt: null })]);

    const all = await store().listForOrganization(organizationId, { limit: 10 });
    const ofEvent = await store().listForOrganization(organizationId, { eventId, limit: 10 });
    const delivered = await store().listForOrganization(organizationId, { status: "delivered", limit: 10 });

    expect(all).toHaveLength(3);
    expect(ofEvent.map((callback) => callback.actionPromise)).toEqual([newer, older]);
    expect(await store().listForOrganization(organizationId, { eventId, limit: 1 })).toEqual([ofEvent[0]]);
    expect(delivered).toEqual([
      expect.objectContaining({
        callbackId: first.id,
        eventId,
        ticketId: null,
        action: "updateEvent",
        status: "delivered",
        attempts: 1,
        nextAttemptAt: null,
        deliveredAt: expect.any(String),
        lastStatusCode: 200,
        attemptLog: [{ startedAt: "2026-01-01T10:00:00.000Z", durationMs: 42, url: `${RECEIVER_B}/log`, statusCode: 200, error: null }],
      }),
    ]);
    expect(ofEvent[0]).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: expect.any(String), attemptLog: [] });
  });

  it("finds a callback only for its own organization", async () => {
    const callbackId = await dueCallback();

    expect(await store().findForOrganization(organizationId, callbackId)).toMatchObject({ callbackId, status: "pending" });
    expect(await store().findForOrganization(otherOrganizationId, callbackId)).toBeNull();
    expect(await store().findForOrganization(organizationId, "not-a-uuid")).toBeNull();
  });
});
