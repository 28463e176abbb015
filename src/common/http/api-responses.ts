import { applyDecorators } from "@nestjs/common";
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiPayloadTooLargeResponse, ApiSecurity, ApiTooManyRequestsResponse } from "@nestjs/swagger";

import { ErrorBodyDto, ForbiddenBodyDto } from "../errors/error-body.dto";

export const API_KEY_SECURITY = "api-key";

/** The answers every authenticated write endpoint may give besides its success. */
export const ApiCommonWriteResponses = () =>
  applyDecorators(
    ApiSecurity(API_KEY_SECURITY),
    ApiBadRequestResponse({ type: ErrorBodyDto, description: "invalid_json, invalid_body (not what the endpoint takes), nesting_too_deep or too_many_items." }),
    ApiForbiddenResponse({ type: ForbiddenBodyDto, description: 'Missing, unknown or revoked X-Api-Key: exactly {"message":"Forbidden"}.' }),
    ApiPayloadTooLargeResponse({ type: ErrorBodyDto, description: "payload_too_large: the body exceeds the endpoint's size cap." }),
    ApiTooManyRequestsResponse({ type: ErrorBodyDto, description: "rate_limited: see the RateLimit-* and Retry-After headers." }),
  );

export const ApiCommonReadResponses = () =>
  applyDecorators(
    ApiSecurity(API_KEY_SECURITY),
    ApiForbiddenResponse({ type: ForbiddenBodyDto, description: "Missing, unknown or revoked X-Api-Key." }),
    ApiTooManyRequestsResponse({ type: ErrorBodyDto, description: "rate_limited" }),
  );
