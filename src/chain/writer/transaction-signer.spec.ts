import { Transaction, Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { TicketRegistry__factory } from "../../../typechain-types";
import { bumpedFees, signBatch, signReplacement } from "./transaction-signer";

const wallet = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const registry = TicketRegistry__factory.createInterface();
const batch = { chainId: 31337n, registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3", items: ["0x05" + "00".repeat(24)], gasLimit: 100_000n };

describe("signBatch", () => {
  it("signs an EIP-1559 execute() call whose hash is that of its raw bytes", async () => {
    const sut = await signBatch(wallet, registry, batch, 7n, { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    const decoded = Transaction.from(sut.raw);
    expect(decoded.hash).toBe(sut.hash);
    expect(decoded.from).toBe(wallet.address);
    expect([decoded.type, decoded.nonce, decoded.chainId, decoded.gasLimit]).toEqual([2, 7, 31337n, 100_000n]);
    expect(registry.decodeFunctionData("execute", decoded.data)[0]).toBe(batch.items[0]);
    expect(sut.itemCount).toBe(1);
  });

  it("replaces with the same nonce and call at higher fees", async () => {
    const first = await signBatch(wallet, registry, batch, 7n, { maxFeePerGas: 100n, maxPriorityFeePerGas: 10n });
    const sut = await signReplacement(wallet, { ...first, id: "x", attempt: 1 }, { maxFeePerGas: 115n, maxPriorityFeePerGas: 12n });
    const [a, b] = [Transaction.from(first.raw), Transaction.from(sut.raw)];
    expect([b.nonce, b.data, b.to, b.gasLimit]).toEqual([a.nonce, a.data, a.to, a.gasLimit]);
    expect(sut.hash).not.toBe(first.hash);
  });
});

describe("bumpedFees", () => {
  it("raises both fields by at least the bump, rounding up", () => {
    expect(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, 10)).toEqual({
      maxFeePerGas: 110n,
      maxPriorityFeePerGas: 11n,
    });
    expect(bumpedFees({ maxFeePerGas: 101n, maxPriorityFeePerGas: 9n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, 10)).toEqual({
      maxFeePerGas: 112n,
      maxPriorityFeePerGas: 10n,
    });
  });

  it("follows the market when it moved further than the bump", () => {
    expect(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 500n, maxPriorityFeePerGas: 50n }, 15)).toEqual({
      maxFeePerGas: 500n,
      maxPriorityFeePerGas: 50n,
    });
  });
});
