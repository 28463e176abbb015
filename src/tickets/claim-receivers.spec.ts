import { getAddress, toBeHex, Wallet, ZeroAddress } from "ethers";
import { describe, expect, it } from "vitest";

import { custodyMaskOf } from "../registry";
import { ClaimReceivers } from "./claim-receivers";

const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
const MASK = custodyMaskOf(80002n, REGISTRY);
const custodial = (eventIndex: bigint, serial: bigint, resales: bigint) => getAddress(toBeHex(((eventIndex << 96n) | (serial << 32n) | resales) ^ MASK, 20));
const address = (value: bigint) => getAddress(toBeHex(value, 20));

const sut = new ClaimReceivers({ binding: { chainId: 80002n, registryAddress: REGISTRY }, signers: [SIGNER] });

describe("ClaimReceivers", () => {
  it("takes a wallet", () => {
    expect(sut.refusalOf(WALLET)).toBeNull();
    expect(sut.refusalOf(Wallet.createRandom().address)).toBeNull();
  });

  it("refuses every precompile address from 0x…01 to 0x…ff, and takes 0x…0100", () => {
    for (let value = 1n; value <= 0xffn; value++) expect(sut.refusalOf(address(value))).toMatch(/precompiled/);
    expect(sut.refusalOf(address(0x100n))).toBeNull();
  });

  it("refuses the zero address as a precompile would be: nothing can hold a token there", () => {
    expect(sut.refusalOf(ZeroAddress)).not.toBeNull();
  });

  it("refuses the burn address", () => {
    expect(sut.refusalOf("0x000000000000000000000000000000000000dEaD")).toMatch(/burn/);
  });

  it("refuses the registry, in any case of its hex", () => {
    expect(sut.refusalOf(REGISTRY)).toMatch(/registry's own address/);
    expect(sut.refusalOf(REGISTRY.toLowerCase())).toMatch(/registry's own address/);
  });

  it("refuses the custody address of any event and the holder addresses of resold tickets, registered or not", () => {
    for (const receiver of [custodial(1n, 0n, 0n), custodial(77n, 0n, 0n), custodial(3n, 9n, 1n), custodial((1n << 40n) - 1n, 5n, 7n)]) {
      expect(sut.refusalOf(receiver)).toMatch(/custodial/);
    }
  });

  it("refuses the service's signers", () => {
    expect(sut.refusalOf(SIGNER)).toMatch(/signing accounts/);
    expect(sut.refusalOf(SIGNER.toLowerCase())).toMatch(/signing accounts/);
  });

  it("knows no registry, custody space or signer before the ledger is bound, and still refuses precompiles and the burn address", () => {
    const unbound = new ClaimReceivers({ binding: null, signers: [] });
    expect(unbound.refusalOf(REGISTRY)).toBeNull();
    expect(unbound.refusalOf(custodial(1n, 0n, 0n))).toBeNull();
    expect(unbound.refusalOf(address(1n))).not.toBeNull();
    expect(unbound.refusalOf("0x000000000000000000000000000000000000dEaD")).not.toBeNull();
  });

  it("depends on the chain the ledger is bound to", () => {
    const otherChain = new ClaimReceivers({ binding: { chainId: 1n, registryAddress: REGISTRY }, signers: [] });
    expect(otherChain.refusalOf(custodial(1n, 0n, 0n))).toBeNull();
  });
});
