import { TypedDataEncoder, Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { recoveredSigner } from "./holder-proofs.service";
import { ethersTypedData, parseTypedData, proofDigest, type ProofMessage, typedDataOf } from "./typed-data";

const TOKEN_PROOF: ProofMessage = {
  chainId: 80002n,
  registryAddress: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  subject: { kind: "token", tokenId: (3n << 64n) | 12n },
  nonce: "0x" + "ab".repeat(32),
  expiry: 1_796_000_120n,
};
const EVENT_PROOF: ProofMessage = { ...TOKEN_PROOF, subject: { kind: "event", eventIndex: 3n } };

/** The issued typed data as a client sends it back: through JSON. */
const roundTrip = (proof: ProofMessage) => JSON.parse(JSON.stringify(typedDataOf(proof))) as Record<string, any>;

describe("the typed data a challenge answers", () => {
  it("is eth_signTypedData_v4's shape: ethers' own payload's types and primary type, the same domain and message", () => {
    for (const proof of [TOKEN_PROOF, EVENT_PROOF]) {
      const { domain, types, value } = ethersTypedData(proof);
      const payload = TypedDataEncoder.getPayload(domain, types, value);
      const issued = roundTrip(proof);
      expect(Object.keys(issued).sort()).toEqual(Object.keys(payload).sort());
      expect({ types: issued.types, primaryType: issued.primaryType }).toEqual({ types: payload.types, primaryType: payload.primaryType });
      expect(TypedDataEncoder.hash(issued.domain, types, issued.message)).toBe(TypedDataEncoder.hash(payload.domain, types, payload.message));
    }
  });

  it("names the registry checksummed, the chain as a number, uint256 values as decimal strings", () => {
    expect(typedDataOf(TOKEN_PROOF)).toMatchObject({
      primaryType: "TokenHolderProof",
      domain: { chainId: 80002, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
      message: { tokenId: "55340232221128654860", nonce: TOKEN_PROOF.nonce, expiry: 1_796_000_120 },
    });
    expect(typedDataOf(EVENT_PROOF)).toMatchObject({ primaryType: "EventHolderProof", message: { eventIndex: "3" } });
  });

  it("signed by ethers' signTypedData (types without EIP712Domain), recovers to the signer; its digest is ethers' hash", async () => {
    const wallet = Wallet.createRandom();
    const issued = roundTrip(TOKEN_PROOF);
    const { EIP712Domain: _domainType, ...types } = issued.types;
    const signature = await wallet.signTypedData(issued.domain, types, issued.message);
    const parsed = parseTypedData(issued).value!;
    expect(parsed).toEqual({ ...TOKEN_PROOF, registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3" });
    expect(recoveredSigner(parsed, signature)).toBe(wallet.address);
    expect(proofDigest(parsed)).toBe(TypedDataEncoder.hash(issued.domain, types, issued.message));
    expect(recoveredSigner({ ...parsed, expiry: parsed.expiry + 1n }, signature)).not.toBe(wallet.address);
    expect(recoveredSigner(parsed, "0x1234")).toBeNull();
  });
});

describe("parseTypedData", () => {
  it("reads the typed data back with or without types.EIP712Domain", () => {
    const issued = roundTrip(EVENT_PROOF);
    expect(parseTypedData(issued).value?.subject).toEqual({ kind: "event", eventIndex: 3n });
    const { EIP712Domain: _domainType, ...types } = issued.types;
    expect(parseTypedData({ ...issued, types }).value?.subject).toEqual({ kind: "event", eventIndex: 3n });
  });

  it("keeps values that differ from what was issued (the verdict judges them)", () => {
    const issued = roundTrip(TOKEN_PROOF);
    issued.domain.chainId = 1;
    expect(parseTypedData(issued).value?.chainId).toBe(1n);
  });

  const broken: [string, (data: Record<string, any>) => void][] = [
    ["message", (d) => Object.keys(d).forEach((key) => delete d[key])],
    ["message.primaryType", (d) => (d.primaryType = "Mail")],
    ["message.types", (d) => (d.types.TokenHolderProof[2].type = "uint256")],
    ["message.types", (d) => (d.types.Extra = [])],
    ["message.types", (d) => (d.types.EIP712Domain = d.types.EIP712Domain.slice(1))],
    ["message.domain.name", (d) => (d.domain.name = "Other")],
    ["message.domain.version", (d) => (d.domain.version = "2")],
    ["message.domain.chainId", (d) => (d.domain.chainId = -1)],
    ["message.domain.verifyingContract", (d) => (d.domain.verifyingContract = "0x12")],
    ["message.message.nonce", (d) => (d.message.nonce = "0x12")],
    ["message.message.expiry", (d) => (d.message.expiry = 1.5)],
    ["message.message.expiry", (d) => (d.message.expiry = (1n << 64n).toString())],
    ["message.message.tokenId", (d) => (d.message.tokenId = "0x10")],
    ["message.message.tokenId", (d) => (d.message.tokenId = (1n << 256n).toString())],
  ];
  it.each(broken)("refuses broken typed data, naming %s", (field, breakIt) => {
    const data = roundTrip(TOKEN_PROOF);
    breakIt(data);
    expect(parseTypedData(Object.keys(data).length ? data : null).error).toMatchObject({ code: "invalid_field", field });
  });
});
