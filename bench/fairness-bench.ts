import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";

import { Client } from "pg";

import { generateTestTls, writeTestTls } from "../scripts/stack/local-tls";
import { startBenchServer } from "./bench-server";
import { startCallbackSink } from "./callback-sink";
import { soldActions, waitForConfirmed } from "./e2e-bench";
import { type Figure, ratioOf, writeFigures } from "./figures";
import { median } from "./stats";
import { CHAIN_NODE_LABELS, startBenchChain } from "./stack/bench-chain";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";

/**
 * Fairness of the chain writer: organization A sends 40,000 soldTicket actions at once (eight
 * concurrent /stream requests of 5000), then organization B sends one sale. Times B's sale from its
 * request until it is confirmed in the ledger (and until its callback reaches a local HTTPS
 * receiver), on Anvil's 2-second blocks, beside the same sale with nothing waiting (idle, the median
 * of IDLE_SALES sales, measured first in the same run). The target: within two blocks of idle.
 * Also prints the blocks between B's acceptance and its confirmation, and which of the batches
 * signed after B's acceptance carried it. `npm run bench:fairness` runs it alone.
 */
const BACKLOG_REQUESTS = 8;
const PER_REQUEST = 5_000;
const BACKLOG = BACKLOG_REQUESTS * PER_REQUEST;
const IDLE_SALES = 5;
const BLOCK_SECONDS = 2;
/** B's sale confirms within this many blocks of its idle time. */
const BLOCKS_OVER_IDLE = 2;
const DEADLINE_MS = 300_000;

export const FAIRNESS_FIGURE_NAME = `Fairness on Anvil: one sale of organization B behind ${BACKLOG.toLocaleString("en-US")} waiting actions of organization A, accepted to confirmed`;

interface Organization {
  ticketeerId: string;
  apiKey: string;
}

interface SaleTiming {
  ticketId: string;
  confirmedSeconds: number;
  calledBackSeconds: number;
  blockAtAcceptance: number;
  confirmedInBlock: number;
}

export async function runFairnessBench(): Promise<Figure[]> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-fairness");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const chain = await startBenchChain(logs.path, { kind: "anvil" });
    teardown.add("chain node", chain.stop);
    const tls = writeTestTls(await generateTestTls());
    teardown.add("test TLS files", async () => tls.remove());
    const calledBack = new Map<string, number>();
    const receiver = await startCallbackSink(tls.certFile, tls.keyFile, (callback) => {
      const body = JSON.parse(callback.body) as { ticketId?: string };
      if (body.ticketId?.startsWith("b-")) calledBack.set(body.ticketId, callback.receivedAt);
    });
    teardown.add("callback receiver", receiver.close);
    const server = await startBenchServer({ ...chain.env, APP_ROLE: "all", CALLBACK_ALLOW_HOSTS: "localhost", NODE_EXTRA_CA_CERTS: tls.caFile }, logs.path);
    teardown.add("service", server.stop);
    const db = new Client({ connectionString: server.databaseUrl });
    await db.connect();
    teardown.add("database client", () => db.end());

    const callbackUrl = `https://localhost:${receiver.port}/callbacks`;
    const a: Organization = { ticketeerId: server.ticketeerId, apiKey: server.apiKey };
    const b = await createOrganization(server.databaseUrl, "bench-organization-b");
    const eventA = await registerEvent(server.baseUrl, a, callbackUrl);
    const eventB = await registerEvent(server.baseUrl, b, callbackUrl);
    await waitForConfirmed(db, 2);

    const sellB = async (ticketId: string): Promise<SaleTiming> => {
      const blockAtAcceptance = await chain.provider.getBlockNumber();
      const started = Date.now();
      const promise = await streamSale(server.baseUrl, b, eventB, ticketId);
      const { confirmedAt, block } = await confirmation(db, promise);
      const calledBackAt = await callbackOf(calledBack, ticketId);
      return {
        ticketId,
        confirmedSeconds: (confirmedAt - started) / 1000,
        calledBackSeconds: (calledBackAt - started) / 1000,
        blockAtAcceptance,
        confirmedInBlock: block,
      };
    };

    const idle: SaleTiming[] = [];
    for (let i = 0; i < IDLE_SALES; i++) idle.push(await sellB(`b-idle-${i}`));
    const idleSeconds = median(idle.map((sale) => sale.confirmedSeconds));

    const backlogStarted = Date.now();
    await Promise.all(
      Array.from({ length: BACKLOG_REQUESTS }, (_, request) => postOk(server.baseUrl, a, "/stream", soldActions(eventA, request * PER_REQUEST, PER_REQUEST))),
    );
    const backlogAcceptedSeconds = (Date.now() - backlogStarted) / 1000;
    const waitingAtB = await waitingOf(db, a);
    const bAcceptedAt = new Date();
    const loaded = await sellB("b-behind-backlog");
    const carrier = await carrierOf(db, loaded.ticketId, bAcceptedAt);

    console.table([...idle.map((sale) => row("idle", sale)), { ...row(`behind ${waitingAtB.toLocaleString("en-US")} of A's actions still waiting`, loaded) }]);
    console.log(
      `A's ${BACKLOG.toLocaleString("en-US")} actions were accepted in ${backlogAcceptedSeconds.toFixed(2)} s; B's sale went in batch ${carrier.position} of those signed after it was accepted ` +
        `(${carrier.itemsOfA} of A's actions and ${carrier.itemsOfB} of B's in it).`,
    );
    await waitForConfirmed(db, 2 + IDLE_SALES + 1 + BACKLOG);

    const target = Math.round((idleSeconds + BLOCKS_OVER_IDLE * BLOCK_SECONDS) * 100) / 100;
    const figure: Figure = {
      name: FAIRNESS_FIGURE_NAME,
      value: Math.round(loaded.confirmedSeconds * 100) / 100,
      unit: "s",
      target,
      better: "lower",
      limit: Math.round(idleSeconds * 100) / 100,
      limitName: `the same sale with nothing waiting (idle, median of ${IDLE_SALES}, same run); the target is idle + ${BLOCKS_OVER_IDLE} blocks of ${BLOCK_SECONDS} s`,
      ratio: ratioOf(loaded.confirmedSeconds, idleSeconds),
    };
    console.log(
      `${CHAIN_NODE_LABELS.anvil}: B's sale confirmed in ${figure.value} s behind the backlog, ${figure.limit} s idle (target ≤ ${target} s): ${figure.value <= target ? "met" : "NOT met"}`,
    );
    passed = true;
    return [figure];
  } finally {
    await teardown.run();
  }
}

function row(situation: string, sale: SaleTiming) {
  return {
    situation,
    "confirmed in s": sale.confirmedSeconds.toFixed(2),
    "called back in s": sale.calledBackSeconds.toFixed(2),
    "blocks from acceptance to its block": sale.confirmedInBlock - sale.blockAtAcceptance,
  };
}

/** A second organization and its key, made with the operators' CLI on the service's database. */
async function createOrganization(databaseUrl: string, ticketeerId: string): Promise<Organization> {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ["-r", "@swc-node/register", "src/cli/main.ts", ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, APP_MODE: "development" },
    });
  await cli("org", "create", ticketeerId, "--name", "Bench organization B");
  const { stdout } = await cli("key", "create", ticketeerId, "--json");
  return { ticketeerId, apiKey: (JSON.parse(stdout) as { key: string }).key };
}

async function registerEvent(baseUrl: string, organization: Organization, callbackUrl: string): Promise<string> {
  const eventId = `bench-${randomBytes(4).toString("hex")}`;
  await postOk(baseUrl, organization, "/api/v1/events", { eventId, ticketeerId: organization.ticketeerId, currency: "EUR", callbackUrl });
  return eventId;
}

async function streamSale(baseUrl: string, organization: Organization, eventId: string, ticketId: string): Promise<string> {
  const answer = (await postOk(baseUrl, organization, "/stream", [
    { action: "soldTicket", data: { eventId, ticketId, price: "49.95", orderTime: 1_750_000_000 } },
  ])) as { data: { actionPromise?: string; error?: unknown }[] };
  const promise = answer.data[0].actionPromise;
  if (!promise) throw new Error(`B's sale was refused: ${JSON.stringify(answer.data[0])}`);
  return promise;
}

async function postOk(baseUrl: string, organization: Organization, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": organization.apiKey },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** When the action was confirmed (polled every 20 ms) and the block that carried it. */
async function confirmation(db: Client, actionId: string): Promise<{ confirmedAt: number; block: number }> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { rows } = await db.query<{ status: string; block_number: string | null }>(`SELECT status, block_number FROM chain_actions WHERE id = $1`, [
      actionId,
    ]);
    if (rows[0]?.status === "confirmed") return { confirmedAt: Date.now(), block: Number(rows[0].block_number) };
    if (rows[0]?.status === "error") throw new Error(`action ${actionId} failed`);
    if (Date.now() > deadline) throw new Error(`action ${actionId} not confirmed within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function callbackOf(calledBack: ReadonlyMap<string, number>, ticketId: string): Promise<number> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!calledBack.has(ticketId)) {
    if (Date.now() > deadline) throw new Error(`no callback for ${ticketId} within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return calledBack.get(ticketId) as number;
}

async function waitingOf(db: Client, organization: Organization): Promise<number> {
  const { rows } = await db.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM chain_actions a JOIN organizations o ON o.id = a.organization_id
      WHERE o.ticketeer_id = $1 AND a.status IN ('waiting_broadcast', 'waiting_funds', 'pending')`,
    [organization.ticketeerId],
  );
  return rows[0].waiting;
}

/** Which of the batches signed after `since` carried the ticket's sale (1 = the first), and what else it carried. */
async function carrierOf(db: Client, ticketId: string, since: Date): Promise<{ position: number; itemsOfA: number; itemsOfB: number }> {
  const { rows } = await db.query<{ position: string; of_b: number; of_a: number }>(
    `WITH carrier AS (
       SELECT a.tx_hash FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE t.ticket_id = $1 AND a.kind = 'sold'
     ), signed AS (
       SELECT tx_hash, row_number() OVER (ORDER BY nonce) AS position FROM chain_transactions WHERE created_at >= $2 AND status = 'confirmed'
     )
     SELECT s.position,
            count(*) FILTER (WHERE a.organization_id = b.organization_id)::int AS of_b,
            count(*) FILTER (WHERE a.organization_id <> b.organization_id)::int AS of_a
       FROM carrier c JOIN signed s ON s.tx_hash = c.tx_hash JOIN chain_actions a ON a.tx_hash = c.tx_hash
       CROSS JOIN (SELECT organization_id FROM tickets WHERE ticket_id = $1) b
      GROUP BY s.position`,
    [ticketId, since],
  );
  if (rows.length === 0) return { position: 0, itemsOfA: 0, itemsOfB: 0 };
  return { position: Number(rows[0].position), itemsOfA: rows[0].of_a, itemsOfB: rows[0].of_b };
}

if (require.main === module) {
  runFairnessBench()
    .then(writeFigures)
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
