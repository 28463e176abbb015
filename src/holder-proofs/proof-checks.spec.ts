import { describe, expect, it } from "vitest";

import type { StoredChallenge } from "./holder-proofs.store";
import { challengeRefusal, signerClaim } from "./proof-checks";
import type { ProofMessage } from "./typed-data";

const NOW = 1_796_000_000n;
const PROOF: ProofMessage = {
  chainId: 80002n,
  registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  subject: { kind: "token", tokenId: 7n },
  nonce: "0x" + "01".repeat(32),
  expiry: NOW + 120n,
};
const CHALLENGE: StoredChallenge = {
  ...PROOF,
  registryAddress: PROOF.registryAddress.toLowerCase(),
  organizationId: "org",
  eventRef: "event",
  eventId: "concert",
  used: false,
};

describe("challengeRefusal", () => {
  it("passes the message of an unused, unexpired challenge, whatever the registry's letter case", () => {
    expect(challengeRefusal(PROOF, CHALLENGE, NOW)).toBeNull();
  });

  it.each([
    ["expired", { ...PROOF, expiry: NOW }, CHALLENGE],
    ["expired", { ...PROOF, expiry: NOW - 1n }, null],
    ["unknown_nonce", PROOF, null],
    ["wrong_chain", { ...PROOF, chainId: 1n }, CHALLENGE],
    ["wrong_registry", { ...PROOF, registryAddress: "0x0000000000000000000000000000000000000001" }, CHALLENGE],
    ["not_issued", { ...PROOF, expiry: PROOF.expiry + 60n }, CHALLENGE],
    ["not_issued", { ...PROOF, subject: { kind: "token", tokenId: 8n } }, CHALLENGE],
    ["not_issued", { ...PROOF, subject: { kind: "event", eventIndex: 7n } }, CHALLENGE],
    ["replayed", PROOF, { ...CHALLENGE, used: true }],
  ] as [string, ProofMessage, StoredChallenge | null][])("%s", (reason, proof, challenge) => {
    expect(challengeRefusal(proof, challenge, NOW)).toBe(reason);
  });

  it("says expired before replayed: an old proof shown again is expired, whether or not its row was cleaned up", () => {
    expect(challengeRefusal({ ...PROOF, expiry: NOW }, { ...CHALLENGE, expiry: NOW, used: true }, NOW)).toBe("expired");
  });
});

describe("signerClaim", () => {
  const EOA = "0x52908400098527886E0F7030069857D2E4169EE7";
  const WALLET = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

  it("is the recovered address when no holder is named, or the named holder is it", () => {
    expect(signerClaim(EOA, null)).toEqual({ holder: EOA, via: "recovered" });
    expect(signerClaim(EOA, EOA.toLowerCase())).toEqual({ holder: EOA.toLowerCase(), via: "recovered" });
  });

  it("asks a named holder that is not the recovered address as a contract wallet, also when nothing was recovered", () => {
    expect(signerClaim(EOA, WALLET)).toEqual({ holder: WALLET, via: "contract_wallet" });
    expect(signerClaim(null, WALLET)).toEqual({ holder: WALLET, via: "contract_wallet" });
  });

  it("refuses a signature that recovers to nobody and names no holder", () => {
    expect(signerClaim(null, null)).toEqual({ refusal: "bad_signature" });
  });
});
