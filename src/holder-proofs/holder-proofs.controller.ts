import { Body, Controller, HttpCode, Post, Res } from "@nestjs/common";
import { ApiBadRequestResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from "@nestjs/swagger";
import type { Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { RequiresScope } from "../auth/required-scope";
import { ApiError } from "../common/errors/api-error";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { ApiCommonWriteResponses } from "../common/http/api-responses";
import { DEPENDENCY_RETRY_AFTER_SECONDS } from "../common/http/service-unavailable";
import { HolderProofChallengeDto, HolderProofVerdictDto } from "./dto/holder-proof-answer.dto";
import { HolderProofChallengeRequestDto, HolderProofVerifyRequestDto } from "./dto/holder-proof-request.dto";
import { HolderProofsService } from "./holder-proofs.service";
import { MAX_EVENT_CANDIDATES } from "./holder-proofs.store";
import { MAX_PROOF_TTL_SECONDS } from "./typed-data";

const UNAVAILABLE = {
  type: ErrorBodyDto,
  description:
    "service_unavailable: the chain (or the database) cannot be read just now, or no chain is configured; nothing was issued or used. See Retry-After.",
  headers: { "Retry-After": { description: "Seconds to wait before sending the request again.", schema: { type: "integer" as const, minimum: 1 } } },
};

/**
 * A holder's proof for gates (a presale for past attendees, a merchandise desk): the gate asks for a
 * challenge, the fan's wallet signs it, the gate asks whether the signature proves holding. Any key
 * scope may do both: a proof reads the chain and changes nothing of the ledger.
 */
@ApiTags("holder-proofs")
@Controller("api/v1/holder-proofs")
export class HolderProofsController {
  constructor(private readonly proofs: HolderProofsService) {}

  @Post("challenge")
  @HttpCode(200)
  @RequiresScope("read")
  @ApiOperation({
    operationId: "createHolderProofChallenge",
    summary: "A one-time EIP-712 message for the holder's wallet to sign: proof of holding a token, or any token of an event",
    description:
      `The message names the registry and its chain (the EIP-712 domain), the token or the event (by its registry index), a random nonce and an expiry ${MAX_PROOF_TTL_SECONDS} s ahead. ` +
      "Pass it to the wallet as is with eth_signTypedData_v4, or to ethers' signTypedData(domain, types, message) without types.EIP712Domain. " +
      "Challenges are kept until they expire; each is used by one valid proof at most.",
  })
  @ApiBody({ type: HolderProofChallengeRequestDto })
  @ApiOkResponse({ type: HolderProofChallengeDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: "invalid_body (not an object, or not exactly one of tokenId and eventId), invalid_field naming tokenId or eventId.",
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "token_not_found or event_not_found: no such ticket or event of your organization." })
  @ApiServiceUnavailableResponse(UNAVAILABLE)
  @ApiCommonWriteResponses()
  challenge(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<HolderProofChallengeDto> {
    return withRetryAfter(response, this.proofs.challenge(organization.id, body));
  }

  @Post("verify")
  @HttpCode(200)
  @RequiresScope("read")
  @ApiOperation({
    operationId: "verifyHolderProof",
    summary: "Whether a signed challenge proves holding: valid, or why not",
    description:
      "Valid when the message is a challenge issued to your organization, unexpired and unused, on this chain and registry, and the signer holds " +
      "the token at the confirmed block (CONFIRMATIONS deep; ownerOf). For an event: any token of it, looked up among the tokens the ledger " +
      `records in the signer's wallet (at most ${MAX_EVENT_CANDIDATES}) and confirmed on chain. A contract wallet (ERC-1271) is named as holder and ` +
      "asked through isValidSignature. A valid proof uses its challenge; a refused one leaves it for another try until it expires. A refusal is a 200 " +
      "with valid false and a reason.",
  })
  @ApiBody({ type: HolderProofVerifyRequestDto })
  @ApiOkResponse({ type: HolderProofVerdictDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      "invalid_body (not an object); invalid_field naming signature, holder, message or the part of it that is not typed data as issued " +
      "(message.types, message.primaryType, message.domain.name, message.message.nonce…).",
  })
  @ApiServiceUnavailableResponse(UNAVAILABLE)
  @ApiCommonWriteResponses()
  verify(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<HolderProofVerdictDto> {
    return withRetryAfter(response, this.proofs.verify(organization.id, body));
  }
}

/** A 503 of the chain carries Retry-After, as the database's does. */
async function withRetryAfter<T>(response: Response, answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) response.setHeader("Retry-After", String(DEPENDENCY_RETRY_AFTER_SECONDS));
    throw error;
  }
}
