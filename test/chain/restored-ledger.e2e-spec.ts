import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CHAIN_WRITER_QUEUE } from "../../src/chain/queue/chain-writer.queue";
import { eventKeyOf, ticketHashOf, tokenIdOf } from "../../src/registry";
import { type CompiledCli, compileCli } from "../cli/compiled-cli";
import { apiClient } from "../support/api-client";
import { actionRows, type Api, CALLBACK_URL, eventIndexOf, mints, sqlOf, tokenIds, txPromises, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { eventually, pauseMining, resumeMining, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";
import { createTestDatabase } from "../support/test-database";

/**
 * A database restored from a dump older than the latest batches: the chain holds events and tickets
 * the ledger lost, and the ledger's next event index, serials and nonce collide with them.
 * `npm run cli -- ledger reconcile` (refused while a worker runs) moves them past the chain and
 * reports what was lost; the restarted service then sells and registers events without a failure.
 */

const ROOT = path.resolve(__dirname, "../..");
const run = promisify(execFile);

let chain: TestChain;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let compiled: CompiledCli;
let testApp: TestApp | undefined;
const dumpFile = path.join(os.tmpdir(), `restored-ledger-${process.pid}-${Date.now()}.dump`);
const reportFile = path.join(os.tmpdir(), `restored-ledger-${process.pid}-${Date.now()}.json`);

beforeAll(async () => {
  [chain, database, compiled] = await Promise.all([startTestChain(), createTestDatabase(), compileCli(ROOT)]);
});

afterAll(async () => {
  await testApp?.close();
  await chain?.stop();
  await database?.drop();
  await compiled?.remove();
  await rm(dumpFile, { force: true });
  await rm(reportFile, { force: true });
});

/** The service on the test's own database, which outlives it; the periodic sweep out of the way (the test holds the queue). */
function startService(): Promise<TestApp> {
  return startTestApp({ ...chain.env, DATABASE_URL: database.url, SWEEP_MIN_AGE_MS: "0", SWEEP_INTERVAL_MS: "600000" });
}

/** `npm run cli -- ledger reconcile` as a child process, with the service's configuration. */
async function reconcile(redisKeyPrefix: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, ...chain.env, DATABASE_URL: database.url, REDIS_KEY_PREFIX: redisKeyPrefix };
  try {
    const { stdout, stderr } = await run(process.execPath, [compiled.entry, "ledger", "reconcile", "--report", reportFile], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** What the ledger would hand out next, and what the chain already holds there. */
async function collisions(app: { sql: Sql }, eventId: string) {
  const [sequence] = await app.sql<{ next: string }>(
    `SELECT (CASE WHEN is_called THEN last_value + 1 ELSE last_value END)::text AS next FROM registry_event_index_seq`,
  );
  const [event] = await app.sql<{ event_index: string; last_serial: string }>(`SELECT event_index, last_serial FROM events WHERE event_id = $1`, [eventId]);
  const [signer] = await app.sql<{ address: string; next_nonce: string }>(`SELECT address, next_nonce FROM chain_signers`);
  const minted = new Set((await mints(chain)).map((mint) => mint.tokenId));
  const nextIndex = BigInt(sequence.next);
  return {
    nextEventIndexTaken: (await chain.registry.eventRecord(nextIndex).catch(() => null)) !== null,
    nextSerialTaken: minted.has(tokenIdOf(BigInt(event.event_index), BigInt(event.last_serial) + 1n)),
    nonceBehind: BigInt(signer.next_nonce) < BigInt(await chain.provider.getTransactionCount(signer.address, "pending")),
  };
}

async function sell(api: Api, eventId: string, count: number): Promise<{ ticketIds: string[]; promises: string[] }> {
  const ticketIds = Array.from({ length: count }, () => uid("t"));
  const answer = await api.post(
    "/api/v1/sold",
    ticketIds.map((ticketId) => ({ eventId, ticketId, price: "1", orderTime: 1_750_000_000 })),
  );
  return { ticketIds, promises: txPromises(answer) };
}

async function newEvent(api: Api, ticketeerId: string, eventId = uid("event")): Promise<{ eventId: string; promise: string }> {
  const created = await api.post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
  expect(created.status).toBe(200);
  return { eventId, promise: created.body.txPromise as string };
}

describe("a ledger restored from a dump older than its latest batches", () => {
  it("is reconciled by `ledger reconcile` (refused while the worker runs): nothing collides, the report lists exactly what was lost", async () => {
    testApp = await startService();
    const { ticketeerId, key } = await testApp.organization();
    let api = apiClient(testApp.baseUrl, key);
    const queue = testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));

    // Before the dump: event A and 3 sales confirmed; 2 more sales broadcast but not mined (mining paused);
    // 1 more accepted and still waiting in the ledger (the queue paused).
    const eventA = await newEvent(api, ticketeerId);
    const confirmed = await sell(api, eventA.eventId, 3);
    await waitForLedgerStatus(testApp, [eventA.promise, ...confirmed.promises], "confirmed");
    await pauseMining(chain);
    const inFlight = await sell(api, eventA.eventId, 2);
    await waitForLedgerStatus(testApp, inFlight.promises, "pending");
    await eventually(async () => ((await sqlOf(testApp!)(`SELECT 1 FROM chain_transactions WHERE status = 'broadcast'`)).length > 0 ? true : undefined));
    await queue.pause();
    // A flush already running when the queue paused could still sign what is accepted next.
    await eventually(async () => ((await queue.getActiveCount()) === 0 ? true : undefined));
    const waitingSale = await sell(api, eventA.eventId, 1);
    const waitingScan = txPromises(await api.post("/api/v1/scanned", [{ ticketId: confirmed.ticketIds[0], orderTime: 1_750_000_100 }]));
    const waiting = { promises: [...waitingSale.promises, ...waitingScan] };
    expect((await actionRows(testApp, waiting.promises)).map((row) => row.status)).toEqual(["waiting_broadcast", "waiting_broadcast"]);

    await run("pg_dump", ["--format=custom", "--file", dumpFile, database.url]);

    // After the dump: everything above reaches the chain, then more sales of A, and event B with 2 sales.
    await queue.resume();
    await resumeMining(chain);
    const lostOfA = await sell(api, eventA.eventId, 2);
    const eventB = await newEvent(api, ticketeerId);
    const lostOfB = await sell(api, eventB.eventId, 2);
    const sentAfterDump = [...inFlight.promises, ...waiting.promises, ...lostOfA.promises, eventB.promise, ...lostOfB.promises];
    await waitForLedgerStatus(testApp, sentAfterDump, "confirmed");
    const eventIndexB = await eventIndexOf(testApp, eventB.eventId);
    const lostTokens = [...(await tokenIds(testApp, lostOfA.ticketIds)).values(), ...(await tokenIds(testApp, lostOfB.ticketIds)).values()];

    // Refused while the service's worker runs: the ledger is not to be moved under a running writer.
    const refused = await reconcile(testApp.config.redis.keyPrefix);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/worker.*running: stop every worker/);
    const keyPrefix = testApp.config.redis.keyPrefix;
    await testApp.close();
    testApp = undefined;

    await run("pg_restore", ["--clean", "--if-exists", "--no-owner", "--dbname", database.url, dumpFile]);
    const restored = { sql: await sqlOfDatabase() };
    try {
      // The before: the ledger would hand out an event index, a serial of A and a nonce the chain already holds.
      expect(await collisions(restored, eventA.eventId)).toEqual({ nextEventIndexTaken: true, nextSerialTaken: true, nonceBehind: true });

      const first = await reconcile(keyPrefix);
      expect(first, first.stderr).toMatchObject({ code: 0 });
      expect(first.stdout).toMatch(/On chain and unknown to the ledger: 1 event, 4 tickets/);
      const report = JSON.parse(await readFile(reportFile, "utf8"));
      expect(report.lostEvents).toEqual([
        { eventKey: eventKeyOf(ticketeerId, eventB.eventId), eventIndex: eventIndexB.toString(), blockNumber: expect.any(Number), txHash: expect.any(String) },
      ]);
      expect(report.lostTickets.map((ticket: { tokenId: string }) => ticket.tokenId)).toEqual(lostTokens.map(String));
      expect(report.lostTickets.map((ticket: { ticketHash: string }) => ticket.ticketHash)).toEqual(
        [...lostOfA.ticketIds, ...lostOfB.ticketIds].map(ticketHashOf),
      );
      expect(report.lostTickets.map((ticket: { eventKey: string }) => ticket.eventKey)).toEqual([
        ...Array(2).fill(eventKeyOf(ticketeerId, eventA.eventId)),
        ...Array(2).fill(eventKeyOf(ticketeerId, eventB.eventId)),
      ]);
      // Nothing else of the lost part reached the chain: its batches carried only those sales and B's registration.
      expect(report.lostActions.map((item: { action: string }) => item.action).sort()).toEqual(["registerEvent", "sold", "sold", "sold", "sold"]);
      // The sale and the scan that waited in the ledger at the dump were sent by the lost part: they are closed, not sent again.
      // The in-flight sales' batch, the ledger's own, is found too: they are closed as it applied them.
      expect([...report.changes.appliedActions].sort()).toEqual([...inFlight.promises, ...waiting.promises].sort());
      // The in-flight sales' transaction is the ledger's own, found mined by its hash.
      expect(report.changes.signers[0]).toMatchObject({ markedMined: [expect.any(String)], givenUp: [], requeuedActions: 0 });
      expect(await collisions(restored, eventA.eventId)).toEqual({ nextEventIndexTaken: false, nextSerialTaken: false, nonceBehind: false });

      // Idempotent: a second run changes nothing and reports the same losses.
      const second = await reconcile(keyPrefix);
      expect(second, second.stderr).toMatchObject({ code: 0 });
      const again = JSON.parse(await readFile(reportFile, "utf8"));
      expect({ lostEvents: again.lostEvents, lostTickets: again.lostTickets }).toEqual({ lostEvents: report.lostEvents, lostTickets: report.lostTickets });
      expect(again.changes).toMatchObject({ eventIndexes: null, serials: [], appliedActions: [] });
      const { nextNonce } = report.changes.signers[0];
      expect(again.changes.signers).toEqual([
        expect.objectContaining({ ledgerNonce: nextNonce, nextNonce, markedMined: [], givenUp: [], withdrawn: [], requeuedActions: 0 }),
      ]);
    } finally {
      await restored.sql.destroy();
    }

    // The service again: the in-flight sales confirm, new sales of A, a new event and B registered anew all confirm.
    testApp = await startService();
    api = apiClient(testApp.baseUrl, key);
    const moreOfA = await sell(api, eventA.eventId, 2);
    const eventC = await newEvent(api, ticketeerId);
    const soldOfC = await sell(api, eventC.eventId, 2);
    const eventBAgain = await newEvent(api, ticketeerId, eventB.eventId);
    const after = [...inFlight.promises, ...waiting.promises, ...moreOfA.promises, eventC.promise, ...soldOfC.promises, eventBAgain.promise];
    await waitForLedgerStatus(testApp, after, "confirmed");
    expect(await sqlOf(testApp)(`SELECT kind, error_code FROM chain_actions WHERE status = 'error'`)).toEqual([]);
    // The scan was applied once: the ticket's one check-in record on chain is the one the ledger confirmed.
    const scans = await chain.registry.queryFilter(chain.registry.filters.TicketsCheckedIn(), 0, "latest");
    expect(scans).toHaveLength(1);
    // A long flow (two boots, a dump and a restore, 2-second blocks on Anvil): more than the default minute.
  }, 180_000);
});

type Sql = ReturnType<typeof sqlOf>;

/** A plain connection to the test's database while no service runs. */
async function sqlOfDatabase(): Promise<Sql & { destroy: () => Promise<void> }> {
  const dataSource = await new DataSource({ type: "postgres", url: database.url }).initialize();
  const sql = <T = any>(text: string, params: unknown[] = []) => dataSource.query<T[]>(text, params);
  return Object.assign(sql, { destroy: () => dataSource.destroy() });
}
