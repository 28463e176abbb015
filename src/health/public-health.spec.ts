import { describe, expect, it } from "vitest";

import { publicHealth } from "./public-health";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

describe("publicHealth", () => {
  it("keeps every indicator and its status, drops signer addresses, balances, nonces and reasons naming them, in info, error and details", () => {
    const signerFunds = {
      status: "degraded",
      checked: true,
      checkedAt: "2026-11-23T10:00:00.000Z",
      maxFeePerGas: "1000",
      signers: { [SIGNER]: { status: "short", balanceWei: "1", neededWei: "2", gasLastHour: "0", nonces: { chainLatest: 3 } } },
      lastError: `chain error for ${SIGNER}`,
    };
    const chainWriter = { status: "degraded", stuckSigners: { [SIGNER]: { since: "x", reason: "txpool is full" } }, reason: `signer ${SIGNER} is stuck` };
    const database = { status: "up" };
    const result = { status: "error", info: { database, signerFunds }, error: { chainWriter }, details: { database, signerFunds, chainWriter } };

    const shown = publicHealth(result);
    expect(JSON.stringify(shown)).not.toContain(SIGNER);
    expect(JSON.stringify(shown)).not.toMatch(/balanceWei|nonces|maxFeePerGas/);
    expect(shown).toEqual({
      status: "error",
      info: { database, signerFunds: { status: "degraded", checked: true, checkedAt: "2026-11-23T10:00:00.000Z", signers: 1, shortSigners: 1 } },
      error: { chainWriter: { status: "degraded", stuckSigners: 1, reason: "1 signer(s) stuck" } },
      details: {
        database,
        signerFunds: { status: "degraded", checked: true, checkedAt: "2026-11-23T10:00:00.000Z", signers: 1, shortSigners: 1 },
        chainWriter: { status: "degraded", stuckSigners: 1, reason: "1 signer(s) stuck" },
      },
    });
  });

  it("says which check failed, not where it points: no error message, no JSON-RPC endpoints", () => {
    const chain = {
      status: "down",
      configured: true,
      reachable: false,
      message: "connect ECONNREFUSED 10.0.3.7:8545",
      endpoints: [{ url: "http://rpc-internal.example:8545", up: false }],
    };
    const database = { status: "down", message: "getaddrinfo ENOTFOUND postgres.internal" };
    const shown = publicHealth({ status: "error", error: { chain, database }, details: { chain, database } });
    expect(JSON.stringify(shown)).not.toMatch(/10\.0\.3\.7|8545|rpc-internal|postgres\.internal/);
    expect(shown).toEqual({
      status: "error",
      error: { chain: { status: "down", configured: true, reachable: false }, database: { status: "down" } },
      details: { chain: { status: "down", configured: true, reachable: false }, database: { status: "down" } },
    });
  });
});
