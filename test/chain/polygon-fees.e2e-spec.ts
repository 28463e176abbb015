import { FetchRequest, toQuantity } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ChainClient } from "../../src/chain/chain-client";
import { allSettled, type Api, chainTransactions, registeredEvent, txPromises, uid } from "../support/chain-e2e";
import { scrapeMetrics, total } from "../support/metrics-scrape";
import { eventually, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The service on a chain with Polygon PoS's chain id (137), with no way out to the internet: ethers
 * attaches a gas-station plugin to its named network 137, and the service must never use it. Fees
 * come from the node alone, with MIN_PRIORITY_FEE_GWEI as the tip's floor and MAX_FEE_PER_GAS_GWEI
 * as a cap the writer waits under.
 */

const GWEI = 1_000_000_000n;
const MIN_TIP = 25n * GWEI;
const CAP = 100n * GWEI;

let chain: TestChain;
let testApp: TestApp;
let api: Api;
let ticketeerId: string;
/** Every URL off this machine that ethers (its gas station plugin would) or fetch was asked for: none may be. */
const ethersFetches: string[] = [];
const remoteFetches: string[] = [];
const originalFetch = globalThis.fetch;
const isLocal = (url: URL) => url.hostname === "127.0.0.1" || url.hostname === "localhost";

beforeAll(async () => {
  const localGetUrl = FetchRequest.createGetUrlFunc();
  FetchRequest.registerGetUrl(async (request, signal) => {
    if (isLocal(new URL(request.url))) return localGetUrl(request, signal);
    ethersFetches.push(request.url);
    throw new Error("no internet in this test");
  });
  globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!isLocal(url)) {
      remoteFetches.push(url.href);
      throw new TypeError("fetch failed: no internet in this test");
    }
    return originalFetch(input, init);
  };
  chain = await startTestChain(1, { kind: "anvil", chainId: 137, blockTime: 1, gasLimit: 45_000_000n, baseFee: 30n * GWEI });
  testApp = await startTestApp({
    ...chain.env,
    MIN_PRIORITY_FEE_GWEI: "25",
    MAX_FEE_PER_GAS_GWEI: "100",
    SWEEP_INTERVAL_MS: "1000",
    SWEEP_MIN_AGE_MS: "0",
  });
  ({ ticketeerId, api } = await testApp.client());
}, 60_000);

afterAll(async () => {
  await testApp?.close();
  await chain?.stop();
  globalThis.fetch = originalFetch;
  FetchRequest.registerGetUrl(FetchRequest.createGetUrlFunc());
});

async function sell(eventId: string, count: number): Promise<string[]> {
  return txPromises(
    await api.post(
      "/api/v1/sold",
      Array.from({ length: count }, () => ({ eventId, ticketId: uid("t"), price: "9", orderTime: 1_750_000_000 })),
    ),
  );
}

const setNextBaseFee = (wei: bigint) => chain.send("anvil_setNextBlockBaseFeePerGas", [toQuantity(wei)]);

describe("fees on chain id 137 without the internet", () => {
  it("confirms sales with fees read from the node, the tip at least MIN_PRIORITY_FEE_GWEI and maxFeePerGas within the cap", async () => {
    expect((await api.get("/api/v1/chain")).body.chainId).toBe(137);
    // A plain network: no plugin of ethers' named network 137 (its gas station), so even ethers' own fee reading stays on the node.
    const provider = await testApp.app.get(ChainClient).connect();
    expect((await provider.getNetwork()).plugins).toEqual([]);
    expect((await provider.getFeeData()).maxPriorityFeePerGas).toBeGreaterThan(0n);
    const eventId = await registeredEvent(api, ticketeerId);
    const results = await allSettled(api, await sell(eventId, 5));
    expect(results.map((result) => result.status)).toEqual(Array(5).fill("confirmed"));

    const hashes = new Set<string>(results.map((result) => result.txHash));
    for (const hash of hashes) {
      const tx = await chain.provider.getTransaction(hash);
      expect(tx?.chainId).toBe(137n);
      expect(tx?.maxPriorityFeePerGas).toBeGreaterThanOrEqual(MIN_TIP);
      expect(tx?.maxFeePerGas).toBeLessThanOrEqual(CAP);
    }
    const ready = await (await fetch(`${testApp.baseUrl}/health/ready`)).json();
    expect(ready.info.fees).toMatchObject({ status: "up", maxFeePerGasCap: CAP.toString() });
    expect(ethersFetches).toEqual([]);
    expect(remoteFetches).toEqual([]);
  });

  it("holds batches while the base fee puts them over MAX_FEE_PER_GAS_GWEI, says so, and sends them by itself once fees drop", async () => {
    const eventId = await registeredEvent(api, ticketeerId);
    const sentBefore = (await chainTransactions(testApp)).length;

    // Anvil lowers the base fee of every empty block by an eighth: keep it far above the cap.
    let high = true;
    const keepHigh = (async () => {
      while (high) {
        await setNextBaseFee(200n * GWEI);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    try {
      await eventually(async () => ((await chain.provider.getBlock("latest"))?.baseFeePerGas ?? 0n) > CAP || undefined, 10_000, "a base fee over the cap");
      const promises = await sell(eventId, 4);

      const ready = await eventually(
        async () => {
          const answer = await (await fetch(`${testApp.baseUrl}/health/ready`)).json();
          return answer.info?.fees?.status === "degraded" ? answer : undefined;
        },
        15_000,
        "readiness to report the fees over the cap",
      );
      expect(ready.status).toBe("degraded");
      expect(ready.info.fees.reason).toMatch(/fees over MAX_FEE_PER_GAS_GWEI: a transaction needs .* gwei\/gas .*the cap is 100/);
      expect(BigInt(ready.info.fees.neededPerGas)).toBeGreaterThan(CAP);
      const { samples } = await scrapeMetrics(testApp.opsUrl);
      expect(total(samples, "ticket_registry_chain_fees_over_cap")).toBe(1);
      expect(total(samples, "ticket_registry_chain_fees_needed_wei")).toBeGreaterThan(Number(CAP));

      // Several seconds of rechecks and sweeps: nothing is signed or broadcast, and the sales say why they wait.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(await chainTransactions(testApp)).toHaveLength(sentBefore);
      for (const promise of promises) expect((await api.get(`/api/v1/actions/${promise}`)).body.status).toBe("waiting_funds");
      expect(total((await scrapeMetrics(testApp.opsUrl)).samples, "ticket_registry_chain_signer_waiting_funds")).toBe(1);

      high = false;
      await keepHigh;
      await setNextBaseFee(GWEI);
      const results = await allSettled(api, promises, 60_000);
      expect(results.map((result) => result.status)).toEqual(Array(4).fill("confirmed"));
      for (const hash of new Set<string>(results.map((result) => result.txHash))) {
        const tx = await chain.provider.getTransaction(hash);
        expect(tx?.maxPriorityFeePerGas).toBeGreaterThanOrEqual(MIN_TIP);
        expect(tx?.maxFeePerGas).toBeLessThanOrEqual(CAP);
      }
      await eventually(
        async () => ((await (await fetch(`${testApp.baseUrl}/health/ready`)).json()).info?.fees?.status === "up" ? true : undefined),
        10_000,
        "readiness to be up again",
      );
      expect(total((await scrapeMetrics(testApp.opsUrl)).samples, "ticket_registry_chain_fees_over_cap")).toBe(0);
      expect(total((await scrapeMetrics(testApp.opsUrl)).samples, "ticket_registry_chain_signer_waiting_funds")).toBe(0);
    } finally {
      high = false;
      await keepHigh;
    }
    expect(ethersFetches).toEqual([]);
    expect(remoteFetches).toEqual([]);
  });
});
