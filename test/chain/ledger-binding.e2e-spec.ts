import { Wallet } from "ethers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { TicketRegistry__factory } from "../../typechain-types";
import { actionPromises, allSettled, type Api, CALLBACK_URL, FINAL_STATUSES, registeredEvent, sqlOf, uid } from "../support/chain-e2e";
import { adminFetch, scrapeMetrics, TEST_ADMIN_PASSWORD, total } from "../support/metrics-scrape";
import { eventually, freePort, HARDHAT_KEYS } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";
import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";
import { useChainApp } from "../support/chain-app";

/**
 * A ledger is bound to the registry it first wrote to (chain id, address, deployment block). A worker
 * configured with another registry writes nothing: readiness degraded naming both, the metric set,
 * one log line; the API keeps accepting. A fresh ledger on a registry another ledger wrote to is not
 * bound to it: its event indexes would collide with the tokens already there.
 *
 * The API runs in this process (APP_ROLE=api); each worker runs apart (APP_ROLE=worker) with the
 * configuration under test, on the same ledger.
 */

let otherRegistry: string;
const workers = new Set<WorkerProcess>();

const chainApp = useChainApp({ env: { APP_ROLE: "api" } });

beforeAll(async () => {
  otherRegistry = await deploySecondRegistry();
});

afterEach(async () => {
  for (const worker of workers) await worker.kill();
  workers.clear();
});

/** A second TicketRegistry on the same chain, the test signer one of its operators. */
async function deploySecondRegistry(): Promise<string> {
  const admin = new Wallet(HARDHAT_KEYS[0], chainApp.chain.provider);
  const registry = await new TicketRegistry__factory(admin).deploy(admin.address, "Other Registry", "OTHER", "", "");
  await registry.waitForDeployment();
  await (await registry.grantRole(await registry.OPERATOR_ROLE(), new Wallet(chainApp.chain.signerKeys[0]).address)).wait();
  return registry.getAddress();
}

/** A worker on the given ledger with this registry address; its operations endpoints' base URL. */
async function startWorker(databaseUrl: string, keyPrefix: string, registryAddress: string): Promise<{ worker: WorkerProcess; baseUrl: string }> {
  const port = await freePort();
  const worker = startWorkerProcess({
    ...chainApp.chain.env,
    REGISTRY_ADDRESS: registryAddress,
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: keyPrefix,
    PORT: String(port),
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SWEEP_INTERVAL_MS: "500",
    SWEEP_MIN_AGE_MS: "0",
  });
  workers.add(worker);
  const baseUrl = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited: ${worker.output()}`);
      return (await fetch(`${baseUrl}/health/live`).catch(() => null))?.ok ? true : undefined;
    },
    90_000,
    "the worker to listen",
  );
  return { worker, baseUrl };
}

/**
 * Once the worker has either refused (its ledgerBinding indicator degraded) or written (every one of
 * these actions final in the ledger): the indicator's details, and the actions' statuses.
 */
function refusedOrWritten(baseUrl: string, testApp: TestApp, promises: string[]): Promise<{ binding: any; statuses: string[] }> {
  return eventually(
    async () => {
      const body = await (await adminFetch(`${baseUrl}/health/ready`)).json();
      const binding = body.details?.ledgerBinding;
      const rows = await sqlOf(testApp)<{ status: string }>(`SELECT status FROM chain_actions WHERE id = ANY($1::uuid[]) ORDER BY seq`, [promises]);
      const statuses = rows.map((row) => row.status);
      const written = statuses.length === promises.length && statuses.every((status) => FINAL_STATUSES.includes(status));
      return binding?.status === "degraded" || written ? { binding, statuses } : undefined;
    },
    60_000,
    "the worker to refuse or to write",
  );
}

/** A new event and `count` sales of it in one /stream request; their promises. */
async function sellTickets(api: Api, count: number): Promise<string[]> {
  const eventId = uid("event");
  const answer = await api.post("/stream", [
    { action: "newEvent", data: { eventId, eventName: "Bound", currency: "EUR", callbackUrl: CALLBACK_URL } },
    ...Array.from({ length: count }, (_, index) => ({
      action: "soldTicket",
      data: { eventId, ticketId: uid("ticket"), price: "10", orderTime: 1_760_000_000 + index },
    })),
  ]);
  return actionPromises(answer);
}

describe("a ledger is bound to one registry", () => {
  it("a worker configured with another registry writes nothing until the configuration names the ledger's again", async () => {
    const client = await chainApp.testApp.client();
    const sql = sqlOf(chainApp.testApp);
    const prefix = chainApp.testApp.config.redis.keyPrefix;

    // The ledger's first write binds it to the configured registry.
    const first = await startWorker(chainApp.testApp.databaseUrl, prefix, chainApp.chain.registryAddress);
    await registeredEvent(client.api, client.ticketeerId);
    await first.worker.kill();
    workers.delete(first.worker);
    const transactionsBefore = (await sql(`SELECT count(*)::int AS n FROM chain_transactions`))[0].n;

    // Another registry on the same chain: the API accepts, the worker writes nothing.
    const wrong = await startWorker(chainApp.testApp.databaseUrl, prefix, otherRegistry);
    const promises = await sellTickets(client.api, 3);
    const { binding, statuses: whenRefused } = await refusedOrWritten(wrong.baseUrl, chainApp.testApp, promises);
    const other = TicketRegistry__factory.connect(otherRegistry, chainApp.chain.provider);
    expect(await other.queryFilter(other.filters.Transfer(), 0, "latest")).toEqual([]);
    expect(whenRefused).toEqual(promises.map(() => "waiting_broadcast"));
    expect(binding?.status).toBe("degraded");
    expect(binding.ledger).toMatchObject({ chainId: String(chainApp.chain.chainId), registryAddress: chainApp.chain.registryAddress, fromBlock: "0" });
    expect(binding.configured).toMatchObject({ chainId: String(chainApp.chain.chainId), registryAddress: otherRegistry, fromBlock: "0" });
    expect(binding.reason).toContain(chainApp.chain.registryAddress);
    expect(binding.reason).toContain(otherRegistry);
    expect(total((await scrapeMetrics(wrong.baseUrl)).samples, "ticket_registry_chain_ledger_registry_mismatch")).toBe(1);
    // Several flushes have run by now (the sweep asks every 500 ms): still nothing signed, one log line.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await sql(`SELECT count(*)::int AS n FROM chain_transactions`))[0].n).toBe(transactionsBefore);
    expect(await other.queryFilter(other.filters.Transfer(), 0, "latest")).toEqual([]);
    const statuses = await sql(`SELECT DISTINCT status FROM chain_actions WHERE id = ANY($1::uuid[])`, [promises]);
    expect(statuses.map((row) => row.status)).toEqual(["waiting_broadcast"]);
    expect(
      wrong.worker
        .output()
        .split("\n")
        .filter((line) => line.includes("is bound to registry")).length,
    ).toBe(1);
    await wrong.worker.kill();
    workers.delete(wrong.worker);

    // The right configuration again: everything accepted meanwhile confirms.
    const right = await startWorker(chainApp.testApp.databaseUrl, prefix, chainApp.chain.registryAddress);
    expect((await allSettled(client.api, promises)).map((body) => body.status)).toEqual(promises.map(() => "confirmed"));
    const ready = await (await adminFetch(`${right.baseUrl}/health/ready`)).json();
    expect(ready.details.ledgerBinding.status).toBe("up");
    expect(total((await scrapeMetrics(right.baseUrl)).samples, "ticket_registry_chain_ledger_registry_mismatch")).toBe(0);
  }, 240_000);

  it("a fresh ledger is not bound to a registry another ledger wrote to: nothing ends in error, readiness says what to do", async () => {
    // The first test's ledger wrote to the registry; this one is new, on the same chain and registry.
    const fresh = await startTestApp({ ...chainApp.chain.env, APP_ROLE: "api" });
    try {
      const client = await fresh.client();
      const { baseUrl } = await startWorker(fresh.databaseUrl, fresh.config.redis.keyPrefix, chainApp.chain.registryAddress);
      const promises = await sellTickets(client.api, 3);
      const { binding, statuses: whenRefused } = await refusedOrWritten(baseUrl, fresh, promises);
      expect(whenRefused).not.toContain("error");
      expect(binding?.status).toBe("degraded");
      expect(binding.reason).toContain("ledger reconcile");
      expect(total((await scrapeMetrics(baseUrl)).samples, "ticket_registry_chain_ledger_registry_mismatch")).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const rows = await sqlOf(fresh)(`SELECT status FROM chain_actions WHERE id = ANY($1::uuid[])`, [promises]);
      expect(rows.map((row) => row.status)).toEqual(promises.map(() => "waiting_broadcast"));
      expect(await sqlOf(fresh)(`SELECT * FROM chain_transactions`)).toEqual([]);
      expect((await client.api.get(`/api/v1/actions/${promises[0]}`)).body.status).not.toBe("error");
    } catch (error) {
      await fresh.close().catch(() => undefined);
      throw error;
    }
    for (const worker of workers) await worker.kill();
    workers.clear();
    await fresh.close();
  }, 180_000);
});
