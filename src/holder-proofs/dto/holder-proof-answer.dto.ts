import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { MAX_PROOF_TTL_SECONDS, PROOF_DOMAIN_NAME, PROOF_DOMAIN_VERSION } from "../typed-data";
import { PROOF_REFUSALS, type ProofRefusal, REFUSAL_MEANINGS } from "../proof-checks";

const FIELD_SCHEMA = {
  type: "array" as const,
  items: { type: "object" as const, properties: { name: { type: "string" as const }, type: { type: "string" as const } }, required: ["name", "type"] },
};

export class HolderProofDomainDto {
  @ApiProperty({ example: PROOF_DOMAIN_NAME, enum: [PROOF_DOMAIN_NAME] })
  name: string;

  @ApiProperty({ example: PROOF_DOMAIN_VERSION, enum: [PROOF_DOMAIN_VERSION] })
  version: string;

  @ApiProperty({ example: 80002, description: "The chain the registry is on." })
  chainId: number;

  @ApiProperty({ example: "0x5FbDB2315678afecb367f032d93F642f64180aa3", description: "The registry (checksummed): the proof is about its tokens." })
  verifyingContract: string;
}

/**
 * A one-time EIP-712 message to have the holder's wallet sign: as is, the params of
 * eth_signTypedData_v4 (JSON.stringify it); for ethers' signTypedData(domain, types, message), leave
 * types.EIP712Domain out.
 */
export class HolderProofChallengeDto {
  @ApiProperty({
    type: "object",
    additionalProperties: FIELD_SCHEMA,
    example: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      TokenHolderProof: [
        { name: "tokenId", type: "uint256" },
        { name: "nonce", type: "bytes32" },
        { name: "expiry", type: "uint64" },
      ],
    },
    description:
      "EIP712Domain (name, version, chainId, verifyingContract) and the primary type: TokenHolderProof (tokenId uint256, nonce bytes32, " +
      "expiry uint64) or EventHolderProof (eventIndex uint64, nonce bytes32, expiry uint64).",
  })
  types: Record<string, { name: string; type: string }[]>;

  @ApiProperty({ enum: ["TokenHolderProof", "EventHolderProof"], example: "TokenHolderProof" })
  primaryType: "TokenHolderProof" | "EventHolderProof";

  @ApiProperty({ type: HolderProofDomainDto })
  domain: HolderProofDomainDto;

  @ApiProperty({
    type: "object",
    additionalProperties: { oneOf: [{ type: "string" }, { type: "integer" }] },
    example: { tokenId: "18446744073709551617", nonce: "0x9c2f…e1", expiry: 1796000120 },
    description:
      "tokenId (decimal string) or eventIndex (decimal string: the registry's index of your event), nonce (32 random bytes, hex), " +
      `expiry (unix seconds; at most ${MAX_PROOF_TTL_SECONDS} s after issue).`,
  })
  message: Record<string, string | number>;

  @ApiProperty({ example: "2030-03-17T17:48:00.000Z", description: "The expiry as a date: a proof verified after it is refused (expired)." })
  expiresAt: string;
}

export class HolderProofVerdictDto {
  @ApiProperty({
    description: "Whether the proof holds: the signer holds the token (or a token of the event) at the confirmed block, and the challenge was unused.",
  })
  valid: boolean;

  @ApiPropertyOptional({
    enum: [...PROOF_REFUSALS],
    description: `Why not, when not valid: ${PROOF_REFUSALS.map((code) => `${code} (${REFUSAL_MEANINGS[code]})`).join("; ")}.`,
  })
  reason?: ProofRefusal;

  @ApiProperty({
    type: "string",
    nullable: true,
    example: "18446744073709551617",
    description: "The token proved (for an event proof: the one of the event found in the holder's wallet); null when none was.",
  })
  tokenId: string | null;

  @ApiProperty({
    type: "string",
    nullable: true,
    example: "0x52908400098527886E0F7030069857D2E4169EE7",
    description: "The holder the proof is for (checksummed): the named holder, or the address the signature recovers to; null when neither is known.",
  })
  holder: string | null;

  @ApiProperty({ type: "string", nullable: true, example: "concert-2030-03-17", description: "Your eventId of the token or event; null for an unknown nonce." })
  eventId: string | null;
}
