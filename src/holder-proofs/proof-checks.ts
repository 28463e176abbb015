import type { StoredChallenge } from "./holder-proofs.store";
import type { ProofMessage, ProofSubject } from "./typed-data";

/**
 * Why a proof is not valid, as machine-readable codes; the order below is the order they are
 * checked in, the cheapest first and the chain last, so that a refusal costs no node call when it
 * needs none.
 */
export const PROOF_REFUSALS = ["expired", "unknown_nonce", "wrong_chain", "wrong_registry", "not_issued", "replayed", "bad_signature", "not_holder"] as const;

export type ProofRefusal = (typeof PROOF_REFUSALS)[number];

export const REFUSAL_MEANINGS: Record<ProofRefusal, string> = {
  expired: "the message's expiry has passed (the service's clock)",
  unknown_nonce: "no challenge of this nonce was issued to this organization, or it expired and was cleaned up",
  wrong_chain: "the domain's chainId is not the chain the challenge was issued for",
  wrong_registry: "the domain's verifyingContract is not the registry the challenge was issued for",
  not_issued: "the message's token, event or expiry differ from what the challenge of its nonce stated",
  replayed: "a valid proof used this challenge already",
  bad_signature: "the signature is not the holder's: it recovers to no address, to another address than the named holder, or the contract wallet refused it",
  not_holder: "the signer does not hold the token (for an event: any token of it) at the confirmed block",
};

/** The checks that need neither the chain nor a signature: the message against its challenge and the clock. */
export function challengeRefusal(proof: ProofMessage, challenge: StoredChallenge | null, nowSeconds: bigint): ProofRefusal | null {
  if (proof.expiry <= nowSeconds) return "expired";
  if (!challenge) return "unknown_nonce";
  if (proof.chainId !== challenge.chainId) return "wrong_chain";
  if (proof.registryAddress.toLowerCase() !== challenge.registryAddress.toLowerCase()) return "wrong_registry";
  if (proof.expiry !== challenge.expiry || !sameSubject(proof.subject, challenge.subject)) return "not_issued";
  if (challenge.used) return "replayed";
  return null;
}

function sameSubject(a: ProofSubject, b: ProofSubject): boolean {
  if (a.kind === "token" && b.kind === "token") return a.tokenId === b.tokenId;
  if (a.kind === "event" && b.kind === "event") return a.eventIndex === b.eventIndex;
  return false;
}

/**
 * Who the proof says signed, before the chain is asked: the address the signature recovers to
 * (null when it recovers to none) and, when the request names a holder, that holder. The named
 * holder is a contract wallet to ask (ERC-1271) unless it is the recovered address itself.
 */
export type SignerClaim = { holder: string; via: "recovered" } | { holder: string; via: "contract_wallet" } | { refusal: "bad_signature" };

export function signerClaim(recovered: string | null, namedHolder: string | null): SignerClaim {
  if (namedHolder === null) return recovered === null ? { refusal: "bad_signature" } : { holder: recovered, via: "recovered" };
  if (recovered !== null && recovered.toLowerCase() === namedHolder.toLowerCase()) return { holder: namedHolder, via: "recovered" };
  return { holder: namedHolder, via: "contract_wallet" };
}
