import { describe, expect, it } from "vitest";
import type { JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";

import { loadConfig } from "../../../config/app-config";
import type { ChainClient } from "../../chain-client";
import { SignerFundsMonitor } from "./signer-funds.monitor";
import type { SignerUsageStore } from "./signer-usage.store";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/**
 * A signer whose writer signs and mines its next transaction at the moment `moment` names, against a
 * monitor reading through stand-ins of the node and the ledger.
 */
function fixture(moment: "ledger read" | "chain read") {
  let ledgerNext = 0;
  let mined = 0;
  const writerSendsOne = () => {
    ledgerNext += 1;
    mined += 1;
  };
  const provider = {
    getBlock: async () => ({ baseFeePerGas: 1_000_000_000n }),
    send: async () => "0x3b9aca00",
    getBalance: async () => 10n ** 18n,
    getTransactionCount: async () => {
      if (moment === "chain read" && mined === 0) writerSendsOne();
      return mined;
    },
  } as unknown as JsonRpcProvider;
  const chain = { configured: true, connect: async () => provider, signers: () => [{ address: SIGNER }] } as unknown as ChainClient;
  const usageStore = {
    usageSince: async () => {
      const usage = { gas: new Map<string, bigint>(), nextNonces: new Map([[SIGNER, ledgerNext]]) };
      if (moment === "ledger read") writerSendsOne();
      return usage;
    },
  } as unknown as SignerUsageStore;
  const gauge = { set: () => undefined } as unknown as Gauge<string>;
  return new SignerFundsMonitor(chain, usageStore, loadConfig({}), gauge, gauge, gauge);
}

describe("SignerFundsMonitor", () => {
  it.each(["ledger read", "chain read"] as const)(
    "never reports the ledger's next nonce below the chain's, whatever the writer sends during a check (sent at the %s)",
    async (moment) => {
      const { signers } = await fixture(moment).check();
      expect(signers[0].nonces.ledgerNext).toBeGreaterThanOrEqual(signers[0].nonces.chainLatest);
    },
  );
});
