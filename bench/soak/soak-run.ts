import { randomBytes } from "node:crypto";
import { join } from "node:path";

import { Pool } from "pg";

import { machineInfo } from "../machine";
import { readRedisMemory } from "../stack/redis-memory";
import { MemorySampler } from "../stack/rss";
import { runDirectory } from "../stack/run-directory";
import { newOrganization, type Stack, startStack } from "../stack/stack";
import { ActionPlanner } from "./action-planner";
import { CallbackTally } from "./callback-tally";
import { checkCallbacks } from "./checks/callback-check";
import { checkChain } from "./checks/chain-check";
import { type CheckLine, firstFew, info, verdict } from "./checks/check-line";
import { checkLedger } from "./checks/ledger-check";
import { checkDatabaseOutageAnswers } from "./checks/outage-answers-check";
import { checkOrder } from "./checks/order-check";
import { waitForDrain } from "./drain";
import { type FaultRecord, type FaultSettings, runFaultSchedule } from "./faults/fault-schedule";
import { recoveryOf } from "./faults/recovery";
import type { RestoreRecord } from "./faults/restore-fault";
import { restoreLines, restoreLosses } from "./checks/restore-losses";
import { driveLoad, type LoadSettings } from "./load-driver";
import { LoadModel, type ModelEvent } from "./load-model";
import { LoadRecord } from "./load-record";
import type { RunOptions } from "./options";
import { printChecks, printLatency, printLedger, printLoad, printMemory, printRecovery, printRedisMemory, printThroughput, type RedisMemory } from "./report";
import { printSenders, printSignerThroughput } from "./signer-report";

const TICK_MS = 500;
const MAX_OPEN_REQUESTS = 64;
const REQUEST_TIMEOUT_MS = 60_000;
const MEMORY_SAMPLE_MS = 5_000;
const REDIS_GROWTH_LIMIT = 2;

/**
 * One soak or fault run: the stack, the load for `minutes` (with faults injected on a schedule when
 * `faults` is given), the drain, then the checks. Resolves true when every check passed.
 */
export async function runSoak(options: RunOptions, faults: FaultSettings | null): Promise<boolean> {
  const logs = runDirectory(faults ? "faults" : "soak");
  const organization = newOrganization();
  const tally = new CallbackTally(organization.webhookSecret);
  console.log(`Starting the stack (process logs in ${logs.path}; removed if every check passes) ...`);
  let passed = false;
  const stack = await startStack({
    logDir: logs.path,
    organization,
    chainProxy: faults !== null,
    databaseProxy: faults?.rotation.includes("postgres") ?? false,
    // Fault runs kill the node and restart it from its state file, which a Hardhat node cannot do: Anvil
    // as a production-like chain, behind the production-node proxy that refuses transactions on demand.
    ...(faults
      ? {
          chainNode: { kind: "anvil", stateFile: join(logs.path, "chain-state.json"), stateIntervalSeconds: faults.nodeStateIntervalSeconds, verbose: true },
          productionNodeProxy: true,
        }
      : {}),
    // A worker killed mid-delivery holds its callbacks' leases; shorter leases keep a short fault run short.
    signers: options.signers,
    workers: options.workers,
    serviceEnv: faults ? { CALLBACK_LEASE_MS: "20000", CALLBACK_TIMEOUT_MS: "10000" } : {},
    onCallback: (callback) => tally.receive(callback),
  });
  // A pool, not one client: a connection the server ends (57P01, a restart) is replaced, and its error does not crash the run.
  const db = new Pool({ connectionString: stack.database.url, max: 2 });
  db.on("error", () => undefined);
  try {
    printStack(stack, options, faults);
    const machine = await machineInfo();
    console.log(
      `Machine: ${machine.date}, ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}; shared with whatever else runs on it`,
    );
    passed = await loadAndCheck(stack, db, tally, options, faults, logs.path);
    return passed;
  } finally {
    await db.end().catch(() => undefined);
    await stack.stop();
    logs.finish(passed);
  }
}

async function loadAndCheck(stack: Stack, db: Pool, tally: CallbackTally, options: RunOptions, faults: FaultSettings | null, logDir: string): Promise<boolean> {
  const memory = new MemorySampler(() => processesOf(stack));
  memory.startEvery(MEMORY_SAMPLE_MS);
  const redisAtStart = await readRedisMemory(stack.redis.url);
  const model = new LoadModel(randomBytes(3).toString("hex"));
  const planner = new ActionPlanner(model, stack.callbackUrl);
  const record = new LoadRecord();
  const settings: LoadSettings = {
    rate: options.rate,
    durationMs: options.minutes * 60_000,
    tickMs: TICK_MS,
    maxInFlight: MAX_OPEN_REQUESTS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  };

  console.log(`Load: ${options.rate} actions/s for ${options.minutes} min${faults ? `, a fault every ${faults.everyMs / 1000} s` : ""} ...`);
  const loadStartedAt = Date.now();
  const restores: RestoreRecord[] = [];
  const restoreHooks = { logDir, records: restores, restored: (restore: { dumpStartedAt: number }) => forgetLost(db, model, record, restore.dumpStartedAt) };
  const faultsDone: Promise<FaultRecord[]> = faults ? runFaultSchedule(stack, faults, loadStartedAt, settings.durationMs, restoreHooks) : Promise.resolve([]);
  await driveLoad(stack, model, planner, settings, record, (event) => void learnCustody(db, stack, event));
  const faultRecords = await faultsDone;

  console.log("Load done; waiting for the backlog to drain ...");
  const drain = await waitForDrain(db, tally, Math.max(300_000, settings.durationMs), () => stack.services.crashLooping);
  const tracks = memory.stop();
  const redisMemory = { start: redisAtStart, end: await readRedisMemory(stack.redis.url) };

  console.log("Checking the ledger, the chain and the callbacks ...");
  const losses = await restoreLosses(db, record, restores);
  const ledger = await checkLedger(db, record, faults ? faultRecords.map(({ startedAt, endedAt }) => ({ startedAt, endedAt })) : null, losses);
  const lines: CheckLine[] = [
    verdict(
      drain.drained,
      "the backlog drained",
      drain.drained ? `in ${drain.seconds.toFixed(1)} s` : `not within ${drain.seconds.toFixed(0)} s: ${JSON.stringify(drain.backlog)}`,
    ),
    processLine(stack, faults !== null),
    redisMemoryLine(redisMemory, faults !== null),
    ...ledger.lines,
    ...restoreLines(losses),
    ...(await checkChain(db, stack.chain.registry, options.sample, losses)),
    ...(await checkOrder(db, tally, restores)),
    ...checkDatabaseOutageAnswers(record, faultRecords),
    ...(await checkCallbacks(
      db,
      tally,
      // A restore, like a killed worker, forgets deliveries: the restored outbox sends them again.
      faults
        ? [
            ...faultRecords.filter((fault) => fault.kind.startsWith("worker") || fault.kind === "PostgreSQL unreachable").map(deliveryInterruption),
            ...restores.map((restore) => ({ at: restore.restoredAt })),
          ]
        : null,
      restores,
    )),
  ];

  printLoad(record, options.rate);
  printLatency(record);
  printThroughput(
    record,
    Object.values(ledger.byKind).reduce((sum, statuses) => sum + Object.values(statuses).reduce((a, b) => a + b, 0), 0),
    drain.seconds,
  );
  await printSignerThroughput(db, stack.chain.signerKeys, (record.endedAt - record.startedAt) / 1000 + drain.seconds);
  await printSenders(db, stack.chain.signerKeys);
  printMemory(tracks);
  printRedisMemory(redisMemory);
  printLedger(ledger.byKind);
  if (faults) printRecovery(await recoveryOf(db, faultRecords, record));
  return printChecks(lines);
}

/** A worker killed (a moment) or PostgreSQL unreachable (a while): deliveries made then may go unrecorded and be sent again. */
function deliveryInterruption(fault: FaultRecord): { at: number; until?: number } {
  return fault.kind === "PostgreSQL unreachable" ? { at: fault.startedAt, until: fault.endedAt } : { at: fault.startedAt };
}

/**
 * After a restore: the actions accepted since the dump that the restored ledger lacks are gone, so the
 * load generator forgets the tickets and events they acted on (it would plan on states the service no
 * longer has). Read from the restored ledger before the services start again.
 */
async function forgetLost(db: Pool, model: LoadModel, record: LoadRecord, dumpStartedAt: number): Promise<void> {
  const since = [...record.accepted].filter(([, accepted]) => accepted.acceptedAt >= dumpStartedAt);
  const kept = new Set(
    (await db.query<{ id: string }>(`SELECT id FROM chain_actions WHERE id = ANY($1::uuid[])`, [since.map(([promise]) => promise)])).rows.map((row) => row.id),
  );
  const lost = since.filter(([promise]) => !kept.has(promise)).map(([, accepted]) => accepted);
  model.forget(
    new Set(lost.flatMap((accepted) => (accepted.ticketId ? [accepted.ticketId] : []))),
    new Set(lost.flatMap((accepted) => (accepted.kind === "newEvent" && accepted.eventId ? [accepted.eventId] : []))),
  );
}

/** The event's custody address: a claim sent there is one the service must refuse at acceptance (on purpose). */
async function learnCustody(db: Pool, stack: Stack, event: ModelEvent): Promise<void> {
  try {
    const { rows } = await db.query<{ event_index: string }>(`SELECT event_index::text FROM events WHERE event_id = $1`, [event.eventId]);
    if (rows[0]) event.custody = await stack.chain.registry.custodyAddress(BigInt(rows[0].event_index));
  } catch {
    // Without it the event's claims all go to wallets.
  }
}

function processesOf(stack: Stack): { name: string; pid: number }[] {
  return [...stack.services.processes().map(({ name, pid }) => ({ name, pid })), { name: "chain node", pid: stack.chain.process.pid }];
}

/**
 * Redis holds queue jobs and rate-limit windows, nothing that should grow with the traffic: its
 * used_memory after the drain stays within REDIS_GROWTH_LIMIT× its value before the load. A fault
 * run empties Redis on purpose, so there it is only reported.
 */
function redisMemoryLine(memory: RedisMemory, faultRun: boolean): CheckLine {
  const detail = `used_memory ${mib(memory.start.usedMemory)} MiB before the load, ${mib(memory.end.usedMemory)} MiB after the drain`;
  const check = `Redis used_memory within ${REDIS_GROWTH_LIMIT}× its start`;
  if (faultRun) return info("Redis used_memory", `${detail} (Redis was emptied by the run's faults)`);
  return verdict(memory.end.usedMemory <= REDIS_GROWTH_LIMIT * memory.start.usedMemory, check, detail);
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(2);

function processLine(stack: Stack, faultRun: boolean) {
  const exits = stack.services.unexpectedExits;
  const ranThroughout = faultRun
    ? "none; the worker restarts are the run's own faults"
    : `none: api and ${stack.services.workerNames.length === 1 ? "worker" : `${stack.services.workerNames.length} workers`} ran throughout`;
  return verdict(
    exits.length === 0,
    "no service process exited on its own",
    exits.length ? firstFew(exits.map((exit) => `${exit.name} (${exit.exit.code ?? exit.exit.signal}; log ${exit.logFile})`)) : ranThroughout,
  );
}

function printStack(stack: Stack, options: RunOptions, faults: FaultSettings | null): void {
  console.log(
    [
      `Stack: api ${stack.baseUrl} (APP_ROLE=api), ${stack.services.workerNames.join(", ")} (APP_ROLE=worker), database ${stack.database.name}, Redis ${stack.redis.url}`,
      `       ${options.signers} signer${options.signers === 1 ? "" : "s"} (SIGNER_PRIVATE_KEYS: development accounts #1${options.signers > 1 ? `–#${options.signers}` : ""}, each an operator)`,
      `       chain ${stack.chain.label} at ${stack.chain.url}${stack.nodeProxy ? ` behind the production-node proxy ${stack.nodeProxy.url}` : ""}${stack.proxy ? ` behind TCP proxy ${stack.proxy.url}` : ""}`,
      `       TicketRegistry ${stack.chain.registryAddress}, callbacks to ${stack.callbackUrl()}`,
      `       ${options.minutes} min at ${options.rate} actions/s${faults ? `; faults every ${faults.everyMs / 1000} s (${faultDurations(faults)})` : ""}`,
    ].join("\n"),
  );
}

function faultDurations(faults: FaultSettings): string {
  return [
    `Redis down ${faults.redisDownMs / 1000} s`,
    `chain unreachable ${faults.chainDownMs / 1000} s`,
    `node killed and restarted after ${faults.nodeDownMs / 1000} s from a state written every ${faults.nodeStateIntervalSeconds} s`,
    `transactions refused for ${faults.refusalMs / 1000} s`,
    `PostgreSQL unreachable ${faults.databaseDownMs / 1000} s`,
    `the database restored from a dump ${faults.restoreGoOnMs / 1000} s older, then reconciled`,
  ].join(", ");
}
