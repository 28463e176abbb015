import { Transaction, Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { SignerReconciler } from "../../src/chain/writer/reconcile/signer-reconciler";
import { allSettled, chainTransactions, eventIndexOf, mints, registeredEvent, sqlOf, tokenIds, txPromises, uid } from "../support/chain-e2e";
import { adminFetch } from "../support/metrics-scrape";

import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * What the writer does about each of a production node's refusals, proven on a real node behind
 * the production-node proxy: stop a signer whose nonce was used elsewhere until it is reconciled,
 * bump the fees, plan smaller, wait for funds. In every case each action is applied once, and the
 * signer's nonces end gapless: the chain's count equals the ledger's next nonce, and no transaction
 * is left open.
 */

const chainApp = useChainApp({ node: "own", productionNode: true, env: { FEE_BUMP_PERCENT: "15" } });

async function sell(eventId: string, count: number): Promise<{ promises: string[]; ticketIds: string[] }> {
  const sales = Array.from({ length: count }, () => ({ eventId, ticketId: uid("t"), price: "8", orderTime: 1_750_000_000 }));
  return { promises: txPromises(await chainApp.api.post("/api/v1/sold", sales)), ticketIds: sales.map((sale) => sale.ticketId) };
}

const signerAddress = () => new Wallet(chainApp.chain.signerKeys[0]).address;

/** Every sale minted exactly once, each in a transaction the ledger confirmed. */
async function expectMintedOnce(eventId: string, ticketIds: string[]): Promise<void> {
  const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
  const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
  expect(minted.map((mint) => mint.tokenId).sort()).toEqual([...(await tokenIds(chainApp.testApp, ticketIds)).values()].sort());
  const confirmed = new Set((await chainTransactions(chainApp.testApp)).filter((tx) => tx.status === "confirmed").map((tx) => tx.tx_hash));
  for (const mint of minted) expect(confirmed).toContain(mint.txHash);
}

/** No nonce gap: the chain's count of the signer's transactions is the ledger's next nonce, and nothing is left open. */
async function expectGapless(): Promise<void> {
  const [signer] = await sqlOf(chainApp.testApp)<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers WHERE address = $1`, [signerAddress()]);
  expect(BigInt(signer.next_nonce)).toBe(BigInt(await chainApp.chain.provider.getTransactionCount(signerAddress(), "latest")));
  expect((await chainTransactions(chainApp.testApp)).filter((tx) => ["signed", "broadcast", "mined"].includes(tx.status))).toEqual([]);
}

/** Refuses each nonce's first attempt with `message`, once. */
function refuseFirstAttempts(message: string, eligible: (tx: Transaction) => boolean = () => true): () => void {
  const refused = new Set<number>();
  return chainApp.productionNode.refuseTransactions(message, (raw) => {
    const tx = Transaction.from(raw);
    if (!eligible(tx) || refused.has(tx.nonce)) return false;
    refused.add(tx.nonce);
    return true;
  });
}

describe("the ledger's next nonce used by another transaction of the signer", () => {
  it("signs nothing at it: the signer stops until reconciled, then the actions go at the chain's next nonce, once", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    // The signer's key used outside the service: the chain's count moves past the ledger's next nonce.
    const outside = await new Wallet(chainApp.chain.signerKeys[0], chainApp.chain.provider).sendTransaction({ to: signerAddress(), value: 0n });
    await outside.wait();
    const { promises, ticketIds } = await sell(eventId, 4);

    await eventually(
      async () => ((await (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json()).info?.signerNonces?.status === "degraded" ? true : undefined),
      20_000,
      "the signer to stop",
    );
    expect((await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === String(outside.nonce))).toEqual([]);
    const report = await chainApp.testApp.app.get(SignerReconciler).reconcile(signerAddress());
    expect(report).toMatchObject({ ledgerNonce: String(outside.nonce), nextNonce: String(outside.nonce + 1), givenUp: [], requeuedActions: 0 });
    expect(report.stop?.reason).toContain("taken by transactions the ledger does not know");

    const results = await allSettled(chainApp.api, promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(4).fill("confirmed"));
    await expectMintedOnce(eventId, ticketIds);
    await expectGapless();
  });
});

describe.each([["transaction underpriced"], ["replacement transaction underpriced"], ["max fee per gas less than block base fee"]])("%s", (message) => {
  it("re-signs the same nonce at once with fees raised by the bump; the actions confirm with the replacement, once", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const lift = refuseFirstAttempts(message);
    try {
      const { promises, ticketIds } = await sell(eventId, 3);
      const results = await allSettled(chainApp.api, promises, 30_000);
      expect(results.map((result) => result.status)).toEqual(Array(3).fill("confirmed"));
      const sale = (await chainTransactions(chainApp.testApp)).find((tx) => tx.tx_hash === results[0].txHash);
      const attempts = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === sale.nonce);
      expect(attempts.map((tx) => [tx.attempt, tx.status])).toEqual([
        [1, "replaced"],
        [2, "confirmed"],
      ]);
      expect(BigInt(attempts[1].max_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(attempts[0].max_fee_per_gas) * 115n);
      expect(BigInt(attempts[1].max_priority_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(attempts[0].max_priority_fee_per_gas) * 115n);
      expect(chainApp.productionNode.sent.find((tx) => tx.raw === attempts[0].raw_tx)?.refusal).toBe(message);
      await expectMintedOnce(eventId, ticketIds);
      await expectGapless();
    } finally {
      lift();
    }
  });
});

describe("exceeds block gas limit: a node whose blocks take less gas than the batch", () => {
  it("plans the batch again within half the refused gas, at the same nonce, and every sale confirms once", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const GAS_LIMIT = 250_000n;
    const lift = chainApp.productionNode.refuseTransactions("exceeds block gas limit", (raw) => Transaction.from(raw).gasLimit > GAS_LIMIT);
    try {
      const { promises, ticketIds } = await sell(eventId, 40);
      const results = await allSettled(chainApp.api, promises, 60_000);
      expect(results.every((result) => result.status === "confirmed")).toBe(true);
      const transactions = await chainTransactions(chainApp.testApp);
      const carried = transactions.filter((tx) => results.some((result) => result.txHash === tx.tx_hash));
      expect(carried.length).toBeGreaterThan(1);
      for (const tx of carried) expect(BigInt(tx.gas_limit)).toBeLessThanOrEqual(GAS_LIMIT);
      expect(transactions.some((tx) => tx.status === "dropped" && BigInt(tx.gas_limit) > GAS_LIMIT)).toBe(true);
      await expectMintedOnce(eventId, ticketIds);
      await expectGapless();
    } finally {
      lift();
    }
  });
});

describe("oversized data for everything, for a while: a node refusing whatever it gets", () => {
  it("learns nothing from small transactions (no batch shrinks to nothing, no item fails) and sends the same bytes again once it takes them", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const lift = chainApp.productionNode.refuseTransactions("oversized data");
    let sold: { promises: string[]; ticketIds: string[] };
    try {
      sold = await sell(eventId, 5);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    } finally {
      lift();
    }
    const results = await allSettled(chainApp.api, sold.promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(5).fill("confirmed"));
    const refused = chainApp.productionNode.sent.filter((tx) => tx.refusal === "oversized data");
    expect(refused.length).toBeGreaterThanOrEqual(2);
    // The same bytes each time: never re-planned.
    expect(new Set(refused.map((tx) => tx.raw)).size).toBe(1);
    expect(new Set(results.map((result) => result.txHash)).size).toBe(1);
    await expectMintedOnce(eventId, sold.ticketIds);
    await expectGapless();
  });
});

describe("intrinsic gas too low: a chain that prices calldata above what the writer planned", () => {
  it("adds the calldata floor to its gas limits and the sales confirm once", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    // A transaction must carry 21,000 plus 500 gas per byte of its data: more than the measured per-item figures hold.
    const needed = (tx: Transaction) => 21_000n + 500n * BigInt((tx.data.length - 2) / 2);
    const lift = chainApp.productionNode.refuseTransactions("intrinsic gas too low", (raw) => {
      const tx = Transaction.from(raw);
      return tx.gasLimit < needed(tx);
    });
    try {
      const { promises, ticketIds } = await sell(eventId, 30);
      const results = await allSettled(chainApp.api, promises, 60_000);
      expect(results.every((result) => result.status === "confirmed")).toBe(true);
      expect(chainApp.productionNode.sent.some((tx) => tx.refusal === "intrinsic gas too low")).toBe(true);
      for (const tx of (await chainTransactions(chainApp.testApp)).filter((tx) => results.some((result) => result.txHash === tx.tx_hash))) {
        expect(BigInt(tx.gas_limit)).toBeGreaterThanOrEqual(needed(Transaction.from(tx.raw_tx)));
      }
      await expectMintedOnce(eventId, ticketIds);
      await expectGapless();
    } finally {
      lift();
    }
  });
});

describe("insufficient funds", () => {
  it("a signer whose balance cannot pay: its actions wait as waiting_funds, readiness and metrics say why, and they confirm once it is funded", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const signer = signerAddress();
    const balance = await chainApp.chain.provider.getBalance(signer);
    await chainApp.chain.send(chainApp.chain.node.kind === "anvil" ? "anvil_setBalance" : "hardhat_setBalance", [signer, "0x" + (10n ** 12n).toString(16)]);
    try {
      const { promises, ticketIds } = await sell(eventId, 3);
      const status = await waitForStatus(promises[0], "waiting_funds");
      expect(status.txHash ?? null).toBeNull();
      const ticket = (await chainApp.api.get(`/api/v1/tickets/${ticketIds[0]}?eventId=${eventId}`)).body;
      expect(JSON.stringify(ticket)).toContain('"waiting_funds"');
      const ready = await (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json();
      expect(ready.info.chainWriter.status).toBe("degraded");
      expect(ready.info.chainWriter.stuckSigners[signer].reason).toMatch(/^waiting for funds: balance 1000000000000 wei, below the \d+ wei/);
      expect(await metricOf("ticket_registry_chain_signer_waiting_funds", signer)).toContain(" 1");

      await chainApp.chain.send(chainApp.chain.node.kind === "anvil" ? "anvil_setBalance" : "hardhat_setBalance", [signer, "0x" + balance.toString(16)]);
      const results = await allSettled(chainApp.api, promises, 60_000);
      expect(results.map((result) => result.status)).toEqual(Array(3).fill("confirmed"));
      await expectMintedOnce(eventId, ticketIds);
      await expectGapless();
      expect((await (await adminFetch(`${chainApp.testApp.baseUrl}/health/ready`)).json()).info.chainWriter.status).toBe("up");
      expect(await metricOf("ticket_registry_chain_signer_waiting_funds", signer)).toContain(" 0");
    } finally {
      await chainApp.chain.send(chainApp.chain.node.kind === "anvil" ? "anvil_setBalance" : "hardhat_setBalance", [signer, "0x" + balance.toString(16)]);
    }
  });

  it("a node that refuses for funds: the refused nonce is taken back, its actions wait as waiting_funds, and they confirm once the refusals stop", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const lift = chainApp.productionNode.refuseTransactions("insufficient funds for gas * price + value");
    const { promises, ticketIds } = await sell(eventId, 3).catch((error: unknown) => {
      lift();
      throw error;
    });
    try {
      await waitForStatus(promises[0], "waiting_funds");
    } finally {
      lift();
    }
    const results = await allSettled(chainApp.api, promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(3).fill("confirmed"));
    expect(chainApp.productionNode.sent.some((sent) => sent.refusal === "insufficient funds for gas * price + value")).toBe(true);
    await expectMintedOnce(eventId, ticketIds);
    await expectGapless();
  });
});

async function waitForStatus(promise: string, status: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const body = (await chainApp.api.get(`/api/v1/actions/${promise}`)).body;
    if (body.status === status) return body;
    if (Date.now() > deadline) throw new Error(`action ${promise} never ${status}; last ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function metricOf(name: string, signer: string): Promise<string> {
  const text = await (await adminFetch(`${chainApp.testApp.opsUrl}/metrics`)).text();
  return text.split("\n").find((line) => line.startsWith(name) && line.includes(signer)) ?? "";
}
