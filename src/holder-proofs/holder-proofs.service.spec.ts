import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { ApiError } from "../common/errors/api-error";
import type { HolderProofsStore, StoredChallenge } from "./holder-proofs.store";
import type { HolderReads } from "./holder-reads";
import { HolderProofsService } from "./holder-proofs.service";
import { typedDataOf, type ProofMessage } from "./typed-data";

const NOW = new Date("2026-12-01T10:00:00Z");
const NOW_SECONDS = BigInt(NOW.getTime() / 1000);
const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const fan = new Wallet(Wallet.createRandom().privateKey);

const PROOF: ProofMessage = {
  chainId: 80002n,
  registryAddress: REGISTRY,
  subject: { kind: "token", tokenId: 7n },
  nonce: "0x" + "07".repeat(32),
  expiry: NOW_SECONDS + 120n,
};
const CHALLENGE: StoredChallenge = { ...PROOF, organizationId: "org", eventRef: "ref", eventId: "concert", used: false };

/** The service over a store and chain reads that record what they were asked. */
function service(options: { challenge?: StoredChallenge | null; owner?: string; chainDown?: boolean; consumed?: boolean } = {}) {
  const calls: string[] = [];
  const store = {
    find: () => Promise.resolve(options.challenge === undefined ? CHALLENGE : options.challenge),
    consume: () => (calls.push("consume"), Promise.resolve(options.consumed ?? true)),
    tokensHeldInEvent: () => Promise.resolve([]),
  } as unknown as HolderProofsStore;
  const chain = (name: string, answer: unknown) => () => {
    calls.push(name);
    return options.chainDown ? Promise.reject(new Error("connection refused")) : Promise.resolve(answer);
  };
  const reads = {
    configured: true,
    confirmedBlock: chain("confirmedBlock", 10),
    ownerOf: chain("ownerOf", options.owner ?? fan.address),
    isContract: chain("isContract", false),
    acceptsSignature: chain("acceptsSignature", false),
    holdersOf: chain("holdersOf", []),
  } as unknown as HolderReads;
  return { proofs: new HolderProofsService(store, reads, { now: () => NOW }), calls };
}

async function signedBody(proof: ProofMessage = PROOF, wallet: Wallet = fan) {
  const typedData = typedDataOf(proof);
  const { EIP712Domain: _domainType, ...types } = typedData.types;
  return { message: typedData, signature: await wallet.signTypedData(typedData.domain, types, typedData.message) };
}

describe("HolderProofsService.verify", () => {
  it("consumes the challenge of a valid proof, after the chain said who holds the token", async () => {
    const { proofs, calls } = service();
    expect(await proofs.verify("org", await signedBody())).toEqual({ valid: true, tokenId: "7", holder: fan.address, eventId: "concert" });
    expect(calls).toEqual(["confirmedBlock", "ownerOf", "consume"]);
  });

  it("refuses what the challenge alone decides without asking the chain, and consumes nothing", async () => {
    for (const [options, proof, reason] of [
      [{ challenge: null }, PROOF, "unknown_nonce"],
      [{ challenge: { ...CHALLENGE, used: true } }, PROOF, "replayed"],
      [{}, { ...PROOF, chainId: 1n }, "wrong_chain"],
      [{}, { ...PROOF, expiry: NOW_SECONDS }, "expired"],
    ] as const) {
      const { proofs, calls } = service(options);
      expect(await proofs.verify("org", await signedBody(proof))).toMatchObject({ valid: false, reason });
      expect(calls, reason).toEqual([]);
    }
  });

  it("refuses a signer who does not hold the token, consuming nothing", async () => {
    const { proofs, calls } = service({ owner: Wallet.createRandom().address });
    expect(await proofs.verify("org", await signedBody())).toMatchObject({ valid: false, reason: "not_holder", holder: fan.address });
    expect(calls).not.toContain("consume");
  });

  it("says replayed when another proof consumed the challenge between its checks and its use", async () => {
    const { proofs } = service({ consumed: false });
    expect(await proofs.verify("org", await signedBody())).toMatchObject({ valid: false, reason: "replayed", tokenId: "7" });
  });

  it("asks a named holder that did not sign as a contract wallet, and refuses one without code", async () => {
    const { proofs, calls } = service();
    const holder = Wallet.createRandom().address;
    expect(await proofs.verify("org", { ...(await signedBody()), holder })).toMatchObject({ valid: false, reason: "bad_signature", holder });
    expect(calls).toEqual(["isContract"]);
  });

  it("answers 503 while the chain cannot be read, consuming nothing", async () => {
    const { proofs, calls } = service({ chainDown: true });
    const failure = await proofs.verify("org", await signedBody()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 503, detail: { code: "service_unavailable" } });
    expect(calls).not.toContain("consume");
  });
});
