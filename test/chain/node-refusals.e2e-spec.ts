import { describe, expect, it } from "vitest";

import { actionRows, allSettled, chainTransactions, registeredEvent, txPromises, uid } from "../support/chain-e2e";
import { adminFetch, scrapeMetrics, total } from "../support/metrics-scrape";

import { eventually, onAnvil } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * A node's refusals as geth and bor word them, in front of the test chain: every refusal is counted
 * by its class, a signer whose broadcasts keep being refused shows in readiness and in
 * chain_signer_stuck until it makes progress again, and `already known` counts as broadcast.
 */

const REFUSALS = "ticket_registry_chain_broadcast_refusals_total";
const STUCK = "ticket_registry_chain_signer_stuck";

// Longer than a block takes to come: with 2-second blocks, 1.5 s would re-send bytes the node holds
// before they could be mined (which the already-known case must tell apart).
const STUCK_AFTER_MS = onAnvil() ? "5000" : "1500";

const chainApp = useChainApp({
  node: "own",
  productionNode: true,
  env: { STUCK_TX_AFTER_MS: STUCK_AFTER_MS, SIGNER_STUCK_AFTER_MS: "60000" },
});

async function sell(eventId: string, count: number): Promise<string[]> {
  const sales = Array.from({ length: count }, () => ({ eventId, ticketId: uid("t"), price: "8", orderTime: 1_750_000_000 }));
  return txPromises(await chainApp.api.post("/api/v1/sold", sales));
}

async function readiness(): Promise<any> {
  return (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json();
}

async function signerAddress(): Promise<string> {
  return (await chainTransactions(chainApp.testApp))[0].signer as string;
}

describe("a node that refuses every transaction with txpool is full", () => {
  it("reports the signer stuck in readiness and chain_signer_stuck, counts the refusals, loses nothing, and recovers once lifted", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const signer = await signerAddress();
    expect((await readiness()).info.chainWriter).toEqual({ status: "up", stuckSigners: {} });

    const lift = chainApp.productionNode.refuseTransactions("txpool is full");
    let promises: string[];
    try {
      promises = [...(await sell(eventId, 3)), ...(await sell(eventId, 2))];
      const ready = await eventually(
        async () => {
          const answer = await readiness();
          return answer.info?.chainWriter?.status === "degraded" ? answer : undefined;
        },
        40_000,
        "readiness to report the signer stuck",
      );
      expect(ready.status).toBe("degraded");
      expect(ready.info.chainWriter.stuckSigners[signer].reason).toMatch(/^last \d+ broadcasts refused: txpool is full$/);
      expect(ready.info.chainWriter.reason).toContain(signer);
      expect(ready.info.chainWriter.reason).toContain("txpool is full");

      const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
      expect(total(samples, REFUSALS, { signer, reason: "txpool is full" })).toBeGreaterThanOrEqual(3);
      expect(total(samples, STUCK, { signer })).toBe(1);
      // Nothing went to the chain, nothing is lost: the first sales wait in their signed transaction; the
      // later ones joined it, or (accepted after the refusal, when nothing more is signed) wait unsigned.
      const statuses = (await actionRows(chainApp.testApp, promises)).map((row) => row.status);
      expect(statuses).toHaveLength(5);
      expect(statuses.slice(0, 3)).toEqual(Array(3).fill("pending"));
      expect(statuses.slice(3).filter((status) => status !== "pending" && status !== "waiting_broadcast")).toEqual([]);
      expect(chainApp.productionNode.sent.filter((tx) => tx.refusal === "txpool is full").length).toBeGreaterThanOrEqual(3);
    } finally {
      lift();
    }

    const results = await allSettled(chainApp.api, promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(5).fill("confirmed"));
    await eventually(async () => ((await readiness()).info?.chainWriter?.status === "up" ? true : undefined), 10_000, "readiness to be up again");
    expect(total((await scrapeMetrics(chainApp.testApp.opsUrl)).samples, STUCK, { signer })).toBe(0);
  });
});

describe("a node that answers already known to a transaction it took", () => {
  it("counts it as broadcast: the actions confirm without sending the bytes again", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const signer = await signerAddress();
    const before = total((await scrapeMetrics(chainApp.testApp.opsUrl)).samples, REFUSALS, { signer, reason: "already known" });
    const sentBefore = chainApp.productionNode.sent.length;

    let answered = false;
    const lift = chainApp.productionNode.refuseTransactions(
      "already known",
      () => {
        if (answered) return false;
        answered = true;
        return true;
      },
      { forward: true },
    );
    try {
      const results = await allSettled(chainApp.api, await sell(eventId, 3), 30_000);
      expect(results.map((result) => result.status)).toEqual(Array(3).fill("confirmed"));
    } finally {
      lift();
    }

    const sent = chainApp.productionNode.sent.slice(sentBefore);
    const known = sent.filter((tx) => tx.refusal === "already known");
    expect(known).toHaveLength(1);
    // No re-send: the bytes the node said it knew reached it once, and nothing was sent twice.
    expect(sent.filter((tx) => tx.raw === known[0].raw)).toHaveLength(1);
    expect(new Set(sent.map((tx) => tx.raw)).size).toBe(sent.length);

    const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(total(samples, REFUSALS, { signer, reason: "already known" })).toBe(before + 1);
    expect(total(samples, STUCK, { signer })).toBe(0);
    expect((await readiness()).info.chainWriter.status).toBe("up");
  });
});
