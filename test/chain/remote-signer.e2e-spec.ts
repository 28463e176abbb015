import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { allSettled, CALLBACK_URL, chainTransactions, txPromises, uid } from "../support/chain-e2e";
import { HARDHAT_KEYS } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * Keys outside the service: SIGNER_REMOTE_URL and SIGNER_ADDRESSES instead of SIGNER_PRIVATE_KEYS.
 * Anvil serves `eth_signTransaction` for its unlocked development accounts (Hardhat's), so the node
 * itself is the remote signer here, for the two operators the test chain granted.
 */

let operators: string[];

const chainApp = useChainApp({
  signers: 2,
  node: { kind: "anvil" },
  env: (chain) => {
    operators = chain.signerKeys.map((key) => new Wallet(key).address);
    return { SIGNER_PRIVATE_KEYS: "", SIGNER_REMOTE_URL: chain.url, SIGNER_ADDRESSES: operators.map((address) => address.toLowerCase()).join(",") };
  },
});

describe("a remote signer", () => {
  it("runs the service with no private key in its configuration", () => {
    expect(chainApp.testApp.config.chain.signerKeys).toEqual([]);
    const config = JSON.stringify(chainApp.testApp.config, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)).toLowerCase();
    for (const key of HARDHAT_KEYS) expect(config).not.toContain(key.slice(2).toLowerCase());
  });

  it("signs every batch: events and sales of both signers confirm on chain, sent from the remote accounts", async () => {
    const eventIds = [uid("event"), uid("event"), uid("event")];
    const promises: string[] = [];
    for (const eventId of eventIds) {
      const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
      expect(created.status).toBe(200);
      promises.push(created.body.txPromise as string);
      promises.push(
        ...txPromises(
          await chainApp.api.post(
            "/api/v1/sold",
            [uid("t"), uid("t")].map((ticketId) => ({ eventId, ticketId, price: "3", orderTime: 1_750_000_000 })),
          ),
        ),
      );
    }

    const statuses = await allSettled(chainApp.api, promises);
    expect(statuses.map((status) => status.status)).toEqual(Array(promises.length).fill("confirmed"));
    const senders = new Set<string>();
    for (const status of statuses) {
      const transaction = await chainApp.chain.provider.getTransaction(status.txHash);
      expect(operators).toContain(transaction!.from);
      senders.add(transaction!.from);
      expect((await chainApp.chain.provider.getTransactionReceipt(status.txHash))?.status).toBe(1);
    }
    // Events are spread over both signers: both remote accounts signed.
    expect([...senders].sort()).toEqual([...operators].sort());
    const transactions = await chainTransactions(chainApp.testApp);
    expect(new Set(transactions.map((tx) => tx.signer))).toEqual(new Set(operators));
  });
});
