import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";
import { IsObject, IsOptional } from "class-validator";

import { IsClientId, IsWalletAddress, rule } from "../../common/validation/field-decorators";
import { parseTokenId } from "../../registry";

/** The longest signature taken, in bytes: a contract wallet's may be far longer than an EOA's 65 (several owners, a passkey). */
export const MAX_SIGNATURE_BYTES = 4096;

const IsDecimalTokenId = () =>
  rule(
    "isDecimalTokenId",
    (value) => typeof value === "string" && parseTokenId(value) !== null,
    (args) => `${args.property} must be a token id: a decimal integer below 2^256, as a string`,
  );

const IsSignature = () =>
  rule(
    "isSignature",
    (value) => typeof value === "string" && value.length <= 2 + 2 * MAX_SIGNATURE_BYTES && /^0x([0-9a-fA-F]{2})+$/.test(value),
    (args) => `${args.property} must be 0x and an even number of hex digits, at most ${MAX_SIGNATURE_BYTES} bytes`,
  );

/** POST /api/v1/holder-proofs/challenge: one of tokenId and eventId. */
export class HolderProofChallengeRequestDto {
  @ApiPropertyOptional({
    example: "18446744073709551617",
    description: "Prove holding this token (decimal, as tokenURI ends): a ticket of your organization. Send this or eventId, not both.",
  })
  @IsOptional()
  @IsDecimalTokenId()
  tokenId?: string;

  @ApiPropertyOptional({
    example: "concert-2030-03-17",
    description:
      "Prove holding any token of this event: your eventId, of your own organization. The message names the event by its registry index " +
      "(eventIndex), never by your eventId. Send this or tokenId, not both.",
  })
  @IsOptional()
  @IsClientId()
  eventId?: string;
}

/** POST /api/v1/holder-proofs/verify. */
export class HolderProofVerifyRequestDto {
  @ApiProperty({
    type: "object",
    additionalProperties: true,
    description:
      "The typed data exactly as the challenge answered it ({types, primaryType, domain, message}); types.EIP712Domain may be left out, as " +
      "ethers' signTypedData takes them.",
  })
  @IsObject()
  message: Record<string, unknown>;

  @ApiProperty({ example: "0x5f1c…1b", description: "The wallet's signature of the typed data (eth_signTypedData_v4, or ethers' signTypedData)." })
  @IsSignature()
  signature: string;

  @ApiPropertyOptional({
    example: "0x52908400098527886E0F7030069857D2E4169EE7",
    description:
      "The holder the proof is for. Needed for a contract wallet (ERC-1271): the signature recovers to its owner's key, not to the wallet, " +
      "so the wallet is named here and asked through isValidSignature. Left out: the address the signature recovers to.",
  })
  @IsOptional()
  @IsWalletAddress()
  holder?: string;
}
