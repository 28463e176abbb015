import { randomBytes } from "node:crypto";

import { Injectable, Logger } from "@nestjs/common";
import { getAddress, hexlify, verifyTypedData } from "ethers";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import { type Clock, InjectClock } from "../common/clock";
import { validatedBody } from "../common/validation/validated-body";
import type { HolderProofChallengeDto, HolderProofVerdictDto } from "./dto/holder-proof-answer.dto";
import { HolderProofChallengeRequestDto, HolderProofVerifyRequestDto } from "./dto/holder-proof-request.dto";
import { HolderProofsStore, type LedgerSubject, type StoredChallenge } from "./holder-proofs.store";
import { HolderReads } from "./holder-reads";
import { challengeRefusal, type ProofRefusal, signerClaim } from "./proof-checks";
import { ethersTypedData, MAX_PROOF_TTL_SECONDS, parseTypedData, proofDigest, type ProofMessage, typedDataOf } from "./typed-data";

/** The chain could not be read, or none is configured: a 503 with Retry-After, nothing consumed. */
export const CHAIN_UNAVAILABLE = errorDetail(
  "service_unavailable",
  "The chain cannot be read just now (or none is configured); no challenge was issued or used. Send the request again after Retry-After seconds.",
);

/**
 * Holder proofs: a one-time EIP-712 challenge about a token or an event, and the verdict on a
 * wallet's signature of it. Everything that needs neither the chain nor the signature is judged
 * first; then the signer (recovered, or a contract wallet's ERC-1271 answer), then the holding at the
 * confirmed block; the challenge is consumed last, by one atomic UPDATE, so only a valid proof uses
 * it and of two racing, one wins.
 */
@Injectable()
export class HolderProofsService {
  private readonly logger = new Logger(HolderProofsService.name);

  constructor(
    private readonly store: HolderProofsStore,
    private readonly reads: HolderReads,
    @InjectClock() private readonly clock: Clock,
  ) {}

  async challenge(organizationId: string, body: unknown): Promise<HolderProofChallengeDto> {
    const input = validatedBody(HolderProofChallengeRequestDto, body);
    const subject = await this.ledgerSubject(organizationId, input);
    const where = await this.fromChain(() => this.reads.whereProofsPoint());
    const now = this.nowSeconds();
    const proof: ProofMessage = { ...where, subject: subject.subject, nonce: hexlify(randomBytes(32)), expiry: now + BigInt(MAX_PROOF_TTL_SECONDS) };
    await this.store.issue({ ...proof, organizationId, eventRef: subject.eventRef }, now);
    return { ...typedDataOf(proof), expiresAt: new Date(Number(proof.expiry) * 1000).toISOString() };
  }

  async verify(organizationId: string, body: unknown): Promise<HolderProofVerdictDto> {
    const input = validatedBody(HolderProofVerifyRequestDto, body);
    const parsed = parseTypedData(input.message);
    if (parsed.error) throw new ApiError(400, parsed.error);
    const proof = parsed.value;
    const challenge = await this.store.find(organizationId, proof.nonce);
    const namedHolder = input.holder ? getAddress(input.holder) : null;
    const recovered = recoveredSigner(proof, input.signature);
    const verdict = (reason: ProofRefusal | null, holder: string | null, tokenId: bigint | null): HolderProofVerdictDto => ({
      valid: reason === null,
      ...(reason ? { reason } : {}),
      tokenId: tokenId?.toString() ?? null,
      holder,
      eventId: challenge?.eventId ?? null,
    });
    const proofToken = proof.subject.kind === "token" ? proof.subject.tokenId : null;
    const refusal = challengeRefusal(proof, challenge, this.nowSeconds());
    if (refusal || !challenge) return verdict(refusal, namedHolder ?? recovered, proofToken);
    const claim = signerClaim(recovered, namedHolder);
    if ("refusal" in claim) return verdict(claim.refusal, namedHolder, proofToken);
    const { holder } = claim;
    const checked = await this.fromChain(async () => {
      if (claim.via === "contract_wallet" && !(await this.contractWalletSigned(holder, proof, input.signature))) return { refusal: "bad_signature" as const };
      return this.heldToken(organizationId, challenge, holder);
    });
    if ("refusal" in checked) return verdict(checked.refusal, holder, proofToken);
    if (!(await this.store.consume(organizationId, proof.nonce, holder))) return verdict("replayed", holder, checked.tokenId);
    return verdict(null, holder, checked.tokenId);
  }

  private async ledgerSubject(organizationId: string, input: HolderProofChallengeRequestDto): Promise<LedgerSubject> {
    if ((input.tokenId === undefined) === (input.eventId === undefined)) {
      throw new ApiError(400, errorDetail("invalid_body", "Send one of tokenId and eventId: what the holder proves to hold."));
    }
    if (input.tokenId !== undefined) {
      const token = await this.store.ledgerToken(organizationId, BigInt(input.tokenId));
      if (!token) throw new ApiError(404, errorDetail("token_not_found", `No ticket of your organization has token ${input.tokenId}.`));
      return token;
    }
    const event = await this.store.ledgerEvent(organizationId, input.eventId!);
    if (!event) throw new ApiError(404, errorDetail("event_not_found", `No event ${input.eventId} in your organization.`));
    return event;
  }

  private async contractWalletSigned(wallet: string, proof: ProofMessage, signature: string): Promise<boolean> {
    return (await this.reads.isContract(wallet)) && (await this.reads.acceptsSignature(wallet, proofDigest(proof), signature));
  }

  /**
   * The token `holder` holds at the confirmed block: the challenge's own, or for an event the first
   * of the event's tokens the ledger records in that wallet that the chain confirms there.
   */
  private async heldToken(organizationId: string, challenge: StoredChallenge, holder: string): Promise<{ tokenId: bigint } | { refusal: "not_holder" }> {
    const block = await this.reads.confirmedBlock();
    const { subject } = challenge;
    if (subject.kind === "token") {
      const owner = await this.reads.ownerOf(subject.tokenId, block);
      return owner === holder ? { tokenId: subject.tokenId } : { refusal: "not_holder" };
    }
    const candidates = await this.store.tokensHeldInEvent(organizationId, subject.eventIndex, holder);
    const holders = await this.reads.holdersOf(candidates, block);
    const index = holders.findIndex((onChain) => onChain === holder);
    return index >= 0 ? { tokenId: candidates[index] } : { refusal: "not_holder" };
  }

  private async fromChain<T>(read: () => Promise<T>): Promise<T> {
    if (!this.reads.configured) throw new ApiError(503, CHAIN_UNAVAILABLE);
    try {
      return await read();
    } catch (error) {
      this.logger.warn(`holder proof: the chain could not be read: ${(error as Error).message}`);
      throw new ApiError(503, CHAIN_UNAVAILABLE);
    }
  }

  private nowSeconds(): bigint {
    return BigInt(Math.floor(this.clock.now().getTime() / 1000));
  }
}

/** The address the signature recovers to for this typed data; null when it recovers to none (a contract wallet's signature, or garbage). */
export function recoveredSigner(proof: ProofMessage, signature: string): string | null {
  const { domain, types, value } = ethersTypedData(proof);
  try {
    return getAddress(verifyTypedData(domain, types, value, signature));
  } catch {
    return null;
  }
}
