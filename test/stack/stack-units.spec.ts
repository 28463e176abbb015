import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { anvilArgs } from "../../scripts/stack/anvil";
import { devAccountKeys, EMBEDDED_SIGNER_KEY } from "../../scripts/stack/dev-accounts";

describe("anvilArgs", () => {
  it("runs quiet on loopback unless told otherwise", () => {
    expect(anvilArgs({ port: 8545 })).toEqual(["--host", "127.0.0.1", "--port", "8545", "--quiet"]);
    expect(anvilArgs({ port: 8545, hostname: "0.0.0.0", verbose: true })).toEqual(["--host", "0.0.0.0", "--port", "8545"]);
  });

  it("keeps the state in a file written every second unless told otherwise", () => {
    expect(anvilArgs({ port: 1, stateFile: "/tmp/state.json" }).slice(-4)).toEqual(["--state", "/tmp/state.json", "--state-interval", "1"]);
    expect(anvilArgs({ port: 1, stateFile: "s.json", stateIntervalSeconds: 5 }).slice(-1)).toEqual(["5"]);
  });

  it("passes the chain's settings", () => {
    const args = anvilArgs({ port: 1, chainId: 80002, blockTime: 2, gasLimit: 45_000_000n, baseFee: 30_000_000_000n, slotsInAnEpoch: 4 });
    expect(args.slice(5)).toEqual([
      "--chain-id",
      "80002",
      "--block-time",
      "2",
      "--gas-limit",
      "45000000",
      "--block-base-fee-per-gas",
      "30000000000",
      "--slots-in-an-epoch",
      "4",
    ]);
  });
});

describe("devAccountKeys", () => {
  it("derives Hardhat's and Anvil's development accounts, #1 the embedded signer", () => {
    const keys = devAccountKeys(3);
    expect(new Wallet(keys[0]).address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(keys[1]).toBe(EMBEDDED_SIGNER_KEY);
    expect(new Set(keys).size).toBe(3);
  });
});
