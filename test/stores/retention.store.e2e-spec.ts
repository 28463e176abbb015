import { Registry } from "prom-client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { CallbackOutboxStore } from "../../src/callbacks/callback-outbox.store";
import { CallbacksStore } from "../../src/callbacks/callbacks.store";
import { ReceiptsStore } from "../../src/chain/writer/receipts/receipts.store";
import type { AppConfig } from "../../src/config/app-config";
import { uuidv7 } from "../../src/common/uuid-v7";
import { ActionChangesStore, CHANGE_RETENTION_DAYS } from "../../src/ledger/live/action-changes.store";
import { METRICS } from "../../src/metrics/metric-definitions";
import { createMetric } from "../../src/metrics/metrics.registry";
import { RETENTION_BATCH, RetentionService } from "../../src/retention/retention.service";
import { RetentionStore } from "../../src/retention/retention.store";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

const DAYS = 30;
const HOURS = 24;
const SIGNER = "0x00000000000000000000000000000000000000a1";

let db: StoreDatabase;
let store: RetentionStore;
let organizationId: string;
let eventRef: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  store = new RetentionStore(db.dataSource);
  organizationId = await db.organization("ticketeer-retention");
  eventRef = uuidv7();
  await db.dataSource.query(
    `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, 'event-r', 'EUR', 'https://r.example.com/cb')`,
    [eventRef, organizationId],
  );
  await db.dataSource.query(`INSERT INTO chain_signers (address, chain_id, next_nonce) VALUES ($1, 31337, 0)`, [SIGNER]);
});

afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  await db.dataSource.query(`DELETE FROM callbacks`);
  await db.dataSource.query(`DELETE FROM chain_transactions`);
});

interface CallbackSpec {
  status: "pending" | "delivered" | "failed";
  /** Days since its delivery (delivered), or since its creation (others). */
  daysAgo: number;
}

/** A callback of the event's callbackUrl with two attempts logged; its id. */
async function callback({ status, daysAgo }: CallbackSpec): Promise<string> {
  const id = uuidv7();
  await db.dataSource.query(
    `INSERT INTO callbacks (id, action_id, organization_id, event_ref, payload, status, receiver, order_key, attempts, last_status_code, created_at, delivered_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'https://r.example.com', $4, 2, $7, now() - make_interval(days => $8), CASE WHEN $6 = 'delivered' THEN now() - make_interval(days => $8) END)`,
    [id, uuidv7(), organizationId, eventRef, { action: "sold", ticketId: "t-1", holder: "0xabc" }, status, status === "delivered" ? 204 : 500, daysAgo],
  );
  for (const code of [500, status === "delivered" ? 204 : 500]) {
    await db.dataSource.query(
      `INSERT INTO callback_attempts (id, callback_id, started_at, duration_ms, url, status_code) VALUES ($1, $2, now() - make_interval(days => $3), 12, 'https://r.example.com/cb', $4)`,
      [uuidv7(), id, daysAgo, code],
    );
  }
  return id;
}

/** The callback's row with its attempts logged; undefined once deleted. */
async function rowOf(id: string): Promise<{ payload: Record<string, unknown>; status: string; attempts: number; logged: number } | undefined> {
  const [row] = await db.dataSource.query(
    `SELECT payload, status, attempts, (SELECT count(*)::int FROM callback_attempts WHERE callback_id = c.id) AS logged FROM callbacks c WHERE id = $1`,
    [id],
  );
  return row;
}

async function attemptsLeftOf(id: string): Promise<number> {
  const [{ left }] = await db.dataSource.query<{ left: number }[]>(`SELECT count(*)::int AS left FROM callback_attempts WHERE callback_id = $1`, [id]);
  return left;
}

let nonce = 0;

/** A transaction of SIGNER with this status, its last change `hoursAgo`; its id. */
async function transaction(status: string, hoursAgo: number): Promise<string> {
  const id = uuidv7();
  nonce += 1;
  await db.dataSource.query(
    `INSERT INTO chain_transactions (id, signer, chain_id, nonce, attempt, tx_hash, raw_tx, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count, status,
                                     block_number, gas_used, updated_at)
     VALUES ($1, $2, 31337, $3, 1, $4, '0x02f8aa', 100000, 1, 1, 3, $5, CASE WHEN $5 IN ('mined', 'confirmed', 'reverted') THEN 7 END,
             CASE WHEN $5 IN ('confirmed', 'reverted') THEN 90000 END, now() - make_interval(hours => $6))`,
    [id, SIGNER, nonce, `0x${id.replace(/-/g, "").padEnd(64, "0")}`, status, hoursAgo],
  );
  return id;
}

describe("RetentionStore.deleteDeliveredCallbacks", () => {
  it("deletes callbacks delivered more than the period ago with their attempt log, and nothing else", async () => {
    const old = await callback({ status: "delivered", daysAgo: DAYS + 1 });
    const young = await callback({ status: "delivered", daysAgo: DAYS - 1 });
    const oldFailed = await callback({ status: "failed", daysAgo: DAYS + 10 });
    const oldPending = await callback({ status: "pending", daysAgo: DAYS + 10 });

    expect(await store.deleteDeliveredCallbacks(DAYS, 1_000)).toEqual({ callbacks: 1, attempts: 2 });

    expect(await rowOf(old)).toBeUndefined();
    expect(await attemptsLeftOf(old)).toBe(0);
    for (const kept of [young, oldFailed, oldPending]) {
      expect(await rowOf(kept)).toMatchObject({ payload: { action: "sold", ticketId: "t-1", holder: "0xabc" }, attempts: 2, logged: 2 });
    }
    // Run again: nothing left to take.
    expect(await store.deleteDeliveredCallbacks(DAYS, 1_000)).toEqual({ callbacks: 0, attempts: 0 });
  });

  it("takes at most the batch, oldest delivery first", async () => {
    const oldest = await callback({ status: "delivered", daysAgo: DAYS + 3 });
    const older = await callback({ status: "delivered", daysAgo: DAYS + 2 });
    const old = await callback({ status: "delivered", daysAgo: DAYS + 1 });

    expect(await store.deleteDeliveredCallbacks(DAYS, 2)).toEqual({ callbacks: 2, attempts: 4 });
    expect(await rowOf(oldest)).toBeUndefined();
    expect(await rowOf(older)).toBeUndefined();
    expect(await rowOf(old)).toBeDefined();
    expect(await store.deleteDeliveredCallbacks(DAYS, 2)).toEqual({ callbacks: 1, attempts: 2 });
  });

  it("leaves a deleted callback unknown to reads and redelivery; one within the period is read whole and redelivered", async () => {
    const old = await callback({ status: "delivered", daysAgo: DAYS + 1 });
    const young = await callback({ status: "delivered", daysAgo: DAYS - 1 });
    await store.deleteDeliveredCallbacks(DAYS, 1_000);

    const callbacks = new CallbacksStore(db.dataSource);
    expect(await callbacks.findForOrganization(organizationId, old)).toBeNull();
    const youngView = await callbacks.findForOrganization(organizationId, young);
    expect(youngView).toMatchObject({ callbackId: young, status: "delivered", body: { action: "sold", ticketId: "t-1", holder: "0xabc" } });
    expect(youngView?.attemptLog).toHaveLength(2);
    expect((await callbacks.listForOrganization(organizationId, { limit: 10 })).map((listed) => listed.callbackId)).toEqual([young]);

    const outbox = new CallbackOutboxStore(db.dataSource);
    expect(await outbox.scheduleRedelivery(organizationId, old)).toBe("not_found");
    const bulk = await outbox.scheduleRedeliveries(organizationId, { eventId: null, webhookId: null, statuses: ["delivered"], since: null });
    expect(bulk).toEqual({ queued: 1, inFlight: 0, receiverDisabled: 0 });
    expect((await rowOf(young))?.status).toBe("pending");
  });

  it("answers a redelivery waiting on retention's lock as not found once the callback is gone", async () => {
    const old = await callback({ status: "delivered", daysAgo: DAYS + 1 });
    const retention = db.dataSource.createQueryRunner();
    await retention.startTransaction();
    try {
      // Retention's statement, held open: it has deleted the row and keeps its lock.
      await retention.query(`DELETE FROM callbacks WHERE id = $1`, [old]);
      const redelivery = new CallbackOutboxStore(db.dataSource).scheduleRedelivery(organizationId, old);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await retention.commitTransaction();
      expect(await redelivery).toBe("not_found");
    } finally {
      await retention.release();
    }
  });
});

describe("RetentionStore and the rows others hold", () => {
  it("skips a callback or a transaction another transaction holds, without waiting for it, and takes it on the next run", async () => {
    const held = await callback({ status: "delivered", daysAgo: DAYS + 2 });
    const free = await callback({ status: "delivered", daysAgo: DAYS + 1 });
    const heldTx = await transaction("confirmed", HOURS + 2);
    const freeTx = await transaction("confirmed", HOURS + 1);
    // A redelivery (or a lease, a finalization) under way: its row locks until it commits.
    const other = db.dataSource.createQueryRunner();
    await other.startTransaction();
    try {
      await other.query(`SELECT 1 FROM callbacks WHERE id = $1 FOR UPDATE`, [held]);
      await other.query(`SELECT 1 FROM chain_transactions WHERE id = $1 FOR UPDATE`, [heldTx]);

      // Were either statement to wait for those locks, it would never return while they are held.
      expect(await store.deleteDeliveredCallbacks(DAYS, 1_000)).toEqual({ callbacks: 1, attempts: 2 });
      expect(await store.clearRawTransactions(HOURS, 1_000)).toBe(1);
      expect(await rowOf(free)).toBeUndefined();
      expect(await rowOf(held)).toBeDefined();
      const raws = await db.dataSource.query<{ id: string; raw_tx: string | null }[]>(`SELECT id, raw_tx FROM chain_transactions WHERE id = ANY($1::uuid[])`, [
        [heldTx, freeTx],
      ]);
      expect(Object.fromEntries(raws.map((row) => [row.id, row.raw_tx]))).toEqual({ [heldTx]: "0x02f8aa", [freeTx]: null });
    } finally {
      await other.commitTransaction();
      await other.release();
    }
    expect(await store.deleteDeliveredCallbacks(DAYS, 1_000)).toEqual({ callbacks: 1, attempts: 2 });
    expect(await store.clearRawTransactions(HOURS, 1_000)).toBe(1);
  });
});

describe("RetentionStore.clearRawTransactions", () => {
  it("clears the bytes of transactions final for longer than the period, keeps every other column and every open attempt's bytes", async () => {
    const confirmed = await transaction("confirmed", HOURS + 1);
    const reverted = await transaction("reverted", HOURS + 1);
    const replaced = await transaction("replaced", HOURS + 1);
    const youngConfirmed = await transaction("confirmed", HOURS - 1);
    const open = await Promise.all(["signed", "broadcast", "mined"].map((status) => transaction(status, HOURS + 5)));

    expect(await store.clearRawTransactions(HOURS, 1_000)).toBe(3);

    const rows = await db.dataSource.query<
      { id: string; raw_tx: string | null; tx_hash: string; status: string; block_number: string | null; gas_used: string | null }[]
    >(`SELECT id, raw_tx, tx_hash, status, block_number, gas_used FROM chain_transactions`);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of [confirmed, reverted, replaced]) expect(byId.get(id)?.raw_tx, id).toBeNull();
    for (const id of [youngConfirmed, ...open]) expect(byId.get(id)?.raw_tx, id).toBe("0x02f8aa");
    expect(byId.get(confirmed)).toMatchObject({ status: "confirmed", block_number: "7", gas_used: "90000" });
    expect(byId.get(confirmed)?.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await store.clearRawTransactions(HOURS, 1_000)).toBe(0);

    // What a node that lost blocks would be sent again: the final attempts, those without bytes as such.
    const final = await new ReceiptsStore(db.dataSource).finalAttempts(SIGNER, 0n, 1_000n);
    expect(final.map((attempt) => [attempt.id, attempt.raw])).toEqual([
      [confirmed, null],
      [reverted, null],
      [youngConfirmed, "0x02f8aa"],
    ]);
  });
});

describe("RetentionService.runOnce", () => {
  it("deletes and clears everything due in batches of RETENTION_BATCH and counts it", async () => {
    const due = RETENTION_BATCH + 5;
    await db.dataSource.query(
      `INSERT INTO callbacks (id, action_id, organization_id, event_ref, payload, status, receiver, order_key, delivered_at)
       SELECT gen_random_uuid(), gen_random_uuid(), $1, $2, '{"action": "sold", "ticketId": "t"}', 'delivered', 'https://r.example.com', $2, now() - make_interval(days => $3)
         FROM generate_series(1, $4)`,
      [organizationId, eventRef, DAYS + 1, due],
    );
    const young = await callback({ status: "delivered", daysAgo: DAYS - 1 });
    await transaction("confirmed", HOURS + 1);

    const registry = new Registry();
    const counter = createMetric(METRICS.retentionPruned, registry) as never;
    const config = { retention: { callbackDays: DAYS, rawTransactionHours: HOURS } } as AppConfig;
    const service = new RetentionService(store, config, counter);

    expect(await service.runOnce()).toEqual({ callbacks: due, callbackAttempts: 0, rawTransactions: 1 });
    const left = await db.dataSource.query<{ id: string }[]>(`SELECT id FROM callbacks`);
    expect(left).toEqual([{ id: young }]);
    const metric = await registry.getSingleMetricAsString(METRICS.retentionPruned.name);
    expect(metric).toContain(`kind="callbacks"} ${due}`);
    expect(metric).toContain(`kind="raw_transactions"} 1`);
  });
});

describe("ActionChangesStore.prune", () => {
  it("deletes the change log's entries older than CHANGE_RETENTION_DAYS, a batch at a time, and keeps the younger", async () => {
    await db.dataSource.query(`DELETE FROM chain_action_changes`);
    const write = (count: number, daysAgo: number) =>
      db.dataSource.query(
        `INSERT INTO chain_action_changes (action_id, organization_id, event_ref, status, changed_at)
         SELECT gen_random_uuid(), $1, $2, 'confirmed', now() - make_interval(days => $3) FROM generate_series(1, $4)`,
        [organizationId, eventRef, daysAgo, count],
      );
    await write(7, CHANGE_RETENTION_DAYS + 1);
    await write(3, CHANGE_RETENTION_DAYS - 1);

    expect(await new ActionChangesStore(db.dataSource).prune(2)).toBe(7);
    const [{ left, young }] = await db.dataSource.query<{ left: number; young: number }[]>(
      `SELECT count(*)::int AS left, count(*) FILTER (WHERE changed_at > now() - make_interval(days => $1))::int AS young FROM chain_action_changes`,
      [CHANGE_RETENTION_DAYS],
    );
    expect({ left, young }).toEqual({ left: 3, young: 3 });
  });
});
