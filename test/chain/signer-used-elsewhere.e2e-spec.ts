import { spawn } from "node:child_process";
import { join } from "node:path";

import { Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import { ReceiptWatcher } from "../../src/chain/writer/receipts/receipt-watcher";
import { actionPromises, chainTransactions, sqlOf, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { newEventData } from "../support/fixtures";
import { adminFetch, scrapeMetrics, total } from "../support/metrics-scrape";

import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";
import { TYPESCRIPT_RUNNER_ARGS } from "../../scripts/stack/typescript-runner";

/**
 * The signer's key used outside the service: a transaction the ledger does not know takes one of its
 * nonces. Seen before signing, the signer stops (readiness degraded with both nonces, a metric, nothing
 * signed) until `npm run cli -- signer reconcile <address>`; met after signing (the nonce taken while its
 * batch was on its way to the node), no later nonce of the signer reaches the node before it, so no sale
 * is ever mined ahead of its event. Either way every action confirms once, none ends in error.
 */

const ROOT = join(__dirname, "..", "..");
const STOPPED = "ticket_registry_chain_signer_stopped";
const SALES = 300;

const lifts: (() => void)[] = [];

// Small batches: the event and its sales span several nonces, as thousands of sales do under the default cap.
const chainApp = useChainApp({
  node: "own",
  productionNode: true,
  env: { TX_GAS_CAP: "500000", STUCK_TX_AFTER_MS: "60000", SIGNER_STUCK_AFTER_MS: "60000" },
});

afterEach(() => {
  for (const lift of lifts.splice(0)) lift();
});

const signerAddress = () => new Wallet(chainApp.chain.signerKeys[0]).address;

/** A transaction sent with the signer's key from outside the service, straight to the node (again, when the writer took its nonce first). */
async function sendFromElsewhere(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const sent = await new Wallet(chainApp.chain.signerKeys[0], chainApp.chain.provider).sendTransaction({ to: signerAddress(), value: 0n });
      await sent.wait();
      return sent.nonce;
    } catch (error) {
      if (attempt === 3 || (error as { code?: string }).code !== "NONCE_EXPIRED") throw error;
    }
  }
}

/** One /stream of a newEvent and its sales; the promises, the event's first. */
async function streamEventAndSales(): Promise<string[]> {
  const eventId = uid("event");
  const sales = Array.from({ length: SALES }, () => ({ action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "8.00" } }));
  return actionPromises(await chainApp.api.post("/api/v1/stream", [{ action: "newEvent", data: newEventData(eventId) }, ...sales]));
}

async function statusCounts(promises: string[]): Promise<Record<string, number>> {
  const rows = await sqlOf(chainApp.testApp)<{ status: string; error_code: string | null }>(
    `SELECT status, error_code FROM chain_actions WHERE id = ANY($1::uuid[])`,
    [promises],
  );
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.error_code ?? row.status] = (counts[row.error_code ?? row.status] ?? 0) + 1;
  return counts;
}

/** Waits until no action is left open: each confirmed or failed. */
async function allFinal(promises: string[]): Promise<Record<string, number>> {
  return eventually(
    async () => {
      const counts = await statusCounts(promises);
      return Object.keys(counts).every((key) => key !== "waiting_broadcast" && key !== "pending" && key !== "waiting_funds") ? counts : undefined;
    },
    90_000,
    "every action to be final",
  );
}

async function readiness(): Promise<any> {
  return (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json();
}

/** `npm run cli -- signer reconcile <address> --json` as an operator runs it, against the test app's database, Redis and chain. */
function reconcileCli(address: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...TYPESCRIPT_RUNNER_ARGS, "src/cli/main.ts", "signer", "reconcile", address, "--json"], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...chainApp.sameLedgerEnv,
      MIGRATE_AT_BOOT: "false",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** Runs `look` while passes of the receipt watcher run one after the other, as its own loop would. */
async function watching<T>(watcher: ReceiptWatcher, look: () => Promise<T>): Promise<T> {
  let running = true;
  const passes = (async () => {
    while (running) {
      await watcher.poll();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return await look();
  } finally {
    running = false;
    await passes;
  }
}

/** An operator who runs signer reconcile whenever readiness reports the signer stopped; stop() resolves with how many times they did. */
function reconcileWhenStopped(): { stop: () => Promise<number> } {
  let running = true;
  let runs = 0;
  const loop = (async () => {
    while (running) {
      if ((await readiness()).info?.signerNonces?.status === "degraded") {
        const cli = await reconcileCli(signerAddress());
        if (cli.code !== 0) throw new Error(`signer reconcile failed: ${cli.stderr}`);
        runs += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return runs;
  })();
  return {
    stop: () => {
      running = false;
      return loop;
    },
  };
}

describe("a nonce taken by a transaction the ledger does not know, seen before signing", () => {
  it("stops the signer (readiness degraded with both nonces, the metric, nothing signed) until signer reconcile; then every action confirms once", async () => {
    // The signer has written before (its ledger row exists); then its key is used elsewhere.
    await waitForLedgerStatus(chainApp.testApp, await streamEventAndSales(), "confirmed", 60_000);
    const transactionsBefore = (await chainTransactions(chainApp.testApp)).length;
    const ledgerNonce = BigInt((await sqlOf(chainApp.testApp)<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);
    const taken = await sendFromElsewhere();
    expect(BigInt(taken)).toBe(ledgerNonce);

    const promises = await streamEventAndSales();
    const ready = await eventually(
      async () => {
        const answer = await readiness();
        return answer.info?.signerNonces?.status === "degraded" ? answer : undefined;
      },
      20_000,
      "readiness to report the signer stopped",
    );
    const stop = ready.info.signerNonces.stoppedSigners[signerAddress()];
    expect(stop).toMatchObject({ ledgerNonce: ledgerNonce.toString(), chainNonce: (ledgerNonce + 1n).toString() });
    expect(ready.info.signerNonces.reason).toContain("signer reconcile");
    expect(total((await scrapeMetrics(chainApp.testApp.opsUrl)).samples, STOPPED, { signer: signerAddress() })).toBe(1);
    // Nothing signed while stopped.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await chainTransactions(chainApp.testApp)).length).toBe(transactionsBefore);
    expect(await statusCounts(promises)).toEqual({ waiting_broadcast: SALES + 1 });

    const cli = await reconcileCli(signerAddress());
    expect(cli.stderr).not.toMatch(/^\s+at /m);
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.stdout);
    expect(report).toMatchObject({ signer: signerAddress(), ledgerNonce: ledgerNonce.toString(), chainNonce: (ledgerNonce + 1n).toString(), resumed: true });

    expect(await allFinal(promises)).toEqual({ confirmed: SALES + 1 });
    await eventually(async () => ((await readiness()).info?.signerNonces?.status === "up" ? true : undefined), 20_000, "readiness to be up again");
    expect(total((await scrapeMetrics(chainApp.testApp.opsUrl)).samples, STOPPED, { signer: signerAddress() })).toBe(0);
  });
});

describe("a nonce taken while its batch is on its way to the node", () => {
  it("sends no later nonce ahead of it: no sale is mined before its event, none ends onchain_event_unknown", async () => {
    await waitForLedgerStatus(chainApp.testApp, await streamEventAndSales(), "confirmed", 60_000);
    const ledgerNonce = BigInt((await sqlOf(chainApp.testApp)<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);
    // Slow broadcasts: the writer signs the event's nonce and the next ones before the node answers the first.
    lifts.push(chainApp.productionNode.delayCalls("eth_sendRawTransaction", 1_500));
    const promises = await streamEventAndSales();
    await eventually(
      async () => ((await chainTransactions(chainApp.testApp)).some((tx) => BigInt(tx.nonce) === ledgerNonce) ? true : undefined),
      20_000,
      "the event's batch to be signed",
    );
    // The key used elsewhere meanwhile: its transaction takes the nonce the event's batch was signed with.
    expect(BigInt(await sendFromElsewhere())).toBe(ledgerNonce);
    lifts.splice(0).forEach((lift) => lift());

    const operator = reconcileWhenStopped();
    const counts = await allFinal(promises).finally(() => operator.stop());
    expect(counts).toEqual({ confirmed: SALES + 1 });
    expect(await operator.stop()).toBeGreaterThanOrEqual(1);
  });
});

describe("our own transaction mined but not yet marked when the signer is reconciled", () => {
  it("is marked mined by its receipt and never given up: its actions confirm once, with its hash", async () => {
    const watcher = chainApp.testApp.app.get(ReceiptWatcher);
    watcher.beforeApplicationShutdown();
    const promises = await streamEventAndSales();
    // Signed, broadcast and mined, but the ledger has not taken note (its watcher is away).
    const ours = await eventually(
      async () => {
        const rows = await sqlOf(chainApp.testApp)<{ tx_hash: string; nonce: string; status: string }>(
          `SELECT DISTINCT t.tx_hash, t.nonce, t.status FROM chain_transactions t JOIN chain_actions a ON a.tx_hash = t.tx_hash WHERE a.id = ANY($1::uuid[]) AND t.status IN ('signed', 'broadcast', 'mined')`,
          [promises],
        );
        const mined = await Promise.all(rows.map((row) => chainApp.chain.provider.getTransactionReceipt(row.tx_hash)));
        return rows.length > 0 && mined.every(Boolean) && (await statusCounts(promises)).pending === SALES + 1 ? rows : undefined;
      },
      30_000,
      "the batches to be mined unmarked",
    );
    await sendFromElsewhere();
    // The next flush sees the chain ahead of the ledger.
    const later = await streamEventAndSales();
    await eventually(async () => ((await readiness()).info?.signerNonces?.status === "degraded" ? true : undefined), 20_000, "the signer to stop");

    const cli = await reconcileCli(signerAddress());
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.stdout);
    // Found mined by their receipts: ours the watcher had not marked (a pass under way when it stopped may have marked
    // some, and a transaction of an earlier test it had not marked yet may be found too), none of them given up.
    const unmarked = ours.filter((row) => row.status !== "mined").sort((a, b) => Number(BigInt(a.nonce) - BigInt(b.nonce)));
    expect(report.markedMined).toEqual(expect.arrayContaining(unmarked.slice(-1).map((row) => row.tx_hash)));
    expect(report.givenUp).toEqual([]);
    // The watcher back (its loop stopped for good: passes driven from here).
    expect(await watching(watcher, () => allFinal(promises))).toEqual({ confirmed: SALES + 1 });
    const hashes = await sqlOf(chainApp.testApp)<{ tx_hash: string }>(`SELECT DISTINCT tx_hash FROM chain_actions WHERE id = ANY($1::uuid[])`, [promises]);
    // Every one of ours still carries actions: none was given up (under load an action may also have gone out again in a later batch).
    expect(hashes.map((row) => row.tx_hash)).toEqual(expect.arrayContaining(ours.map((row) => row.tx_hash)));
    const dropped = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.status === "dropped" && ours.some((row) => row.nonce === tx.nonce));
    expect(dropped).toEqual([]);
    expect(await watching(watcher, () => allFinal(later))).toEqual({ confirmed: SALES + 1 });
  });
});
