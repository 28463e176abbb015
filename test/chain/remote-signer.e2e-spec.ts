import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type Api, allSettled, CALLBACK_URL, chainTransactions, txPromises, uid } from "../support/chain-e2e";
import { HARDHAT_KEYS, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Keys outside the service: SIGNER_REMOTE_URL and SIGNER_ADDRESSES instead of SIGNER_PRIVATE_KEYS.
 * Anvil serves `eth_signTransaction` for its unlocked development accounts (Hardhat's), so the node
 * itself is the remote signer here, for the two operators the test chain granted.
 */

let chain: TestChain;
let testApp: TestApp;
let api: Api;
let ticketeerId: string;
let operators: string[];

beforeAll(async () => {
  chain = await startTestChain(2, { kind: "anvil" });
  operators = chain.signerKeys.map((key) => new Wallet(key).address);
  const { SIGNER_PRIVATE_KEYS: _keys, ...env } = chain.env;
  testApp = await startTestApp({ ...env, SIGNER_REMOTE_URL: chain.url, SIGNER_ADDRESSES: operators.map((address) => address.toLowerCase()).join(",") });
  ({ ticketeerId, api } = await testApp.client());
});

afterAll(async () => {
  await testApp?.close();
  await chain?.stop();
});

describe("a remote signer", () => {
  it("runs the service with no private key in its configuration", () => {
    expect(testApp.config.chain.signerKeys).toEqual([]);
    const config = JSON.stringify(testApp.config, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)).toLowerCase();
    for (const key of HARDHAT_KEYS) expect(config).not.toContain(key.slice(2).toLowerCase());
  });

  it("signs every batch: events and sales of both signers confirm on chain, sent from the remote accounts", async () => {
    const eventIds = [uid("event"), uid("event"), uid("event")];
    const promises: string[] = [];
    for (const eventId of eventIds) {
      const created = await api.post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
      expect(created.status).toBe(200);
      promises.push(created.body.txPromise as string);
      promises.push(
        ...txPromises(
          await api.post(
            "/api/v1/sold",
            [uid("t"), uid("t")].map((ticketId) => ({ eventId, ticketId, price: "3", orderTime: 1_750_000_000 })),
          ),
        ),
      );
    }

    const statuses = await allSettled(api, promises);
    expect(statuses.map((status) => status.status)).toEqual(Array(promises.length).fill("confirmed"));
    const senders = new Set<string>();
    for (const status of statuses) {
      const transaction = await chain.provider.getTransaction(status.txHash);
      expect(operators).toContain(transaction!.from);
      senders.add(transaction!.from);
      expect((await chain.provider.getTransactionReceipt(status.txHash))?.status).toBe(1);
    }
    // Events are spread over both signers: both remote accounts signed.
    expect([...senders].sort()).toEqual([...operators].sort());
    const transactions = await chainTransactions(testApp);
    expect(new Set(transactions.map((tx) => tx.signer))).toEqual(new Set(operators));
  });
});
