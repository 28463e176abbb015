import { getAddress, toBeHex } from "ethers";
import { describe, expect, it } from "vitest";

import { custodyMaskOf, inCustodialSpace, MAX_EVENT_INDEX } from "./registry-custody";

const MASK = custodyMaskOf(80002n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const custodial = (eventIndex: bigint, serial: bigint, resales: bigint) => getAddress(toBeHex(((eventIndex << 96n) | (serial << 32n) | resales) ^ MASK, 20));

describe("inCustodialSpace", () => {
  it("takes the custody address of any event index up to 2^40 - 1, registered or not", () => {
    for (const eventIndex of [0n, 1n, 77n, MAX_EVENT_INDEX]) expect(inCustodialSpace(MASK, custodial(eventIndex, 0n, 0n))).toBe(true);
  });

  it("takes the holder address of any ticket after any number of resales", () => {
    expect(inCustodialSpace(MASK, custodial(3n, 9n, 1n))).toBe(true);
    expect(inCustodialSpace(MASK, custodial(MAX_EVENT_INDEX, (1n << 64n) - 1n, (1n << 32n) - 1n))).toBe(true);
  });

  it("leaves out what no event index can have and shapes the registry never derives", () => {
    expect(inCustodialSpace(MASK, custodial(MAX_EVENT_INDEX + 1n, 0n, 0n))).toBe(false);
    expect(inCustodialSpace(MASK, custodial(3n, 9n, 0n))).toBe(false);
    expect(inCustodialSpace(MASK, custodial(3n, 0n, 1n))).toBe(false);
    expect(inCustodialSpace(MASK, "0x52908400098527886E0F7030069857D2E4169EE7")).toBe(false);
  });

  it("depends on the chain and the registry", () => {
    expect(custodyMaskOf(1n, "0x5FbDB2315678afecb367f032d93F642f64180aa3")).not.toBe(MASK);
    expect(inCustodialSpace(custodyMaskOf(1n, "0x5FbDB2315678afecb367f032d93F642f64180aa3"), custodial(1n, 0n, 0n))).toBe(false);
  });
});
