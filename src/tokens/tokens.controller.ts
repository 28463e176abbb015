import { Controller, Get, HttpCode, Logger, Options, Param, Req, Res } from "@nestjs/common";
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from "@nestjs/swagger";
import { createHash } from "node:crypto";

import type { Request, Response } from "express";

import { Public } from "../auth/authenticated-organization";
import { clientKeyOfRequest } from "../common/http/client-key";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { type ErrorDetail, errorDetail, invalidField } from "../common/errors/error-detail";
import { COLLECTION_SEGMENT, connectionBaseUrl, TOKENS_PATH, tokenPageUrl } from "../common/public-urls";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { parseTokenId } from "../registry";
import { CollectionService } from "./collection.service";
import { CollectionMetadataDto, TokenMetadataDto } from "./dto/token-metadata.dto";
import { MetadataRateLimit } from "./metadata-rate-limit";
import { servedMetadata } from "./served-metadata";
import { TokenFactsService } from "./token-facts.service";
import { tokenMetadata } from "./token-metadata";
import { LedgerMetadataStore } from "./ledger-metadata.store";

/** Wallet web apps read metadata from their own origin: any origin may, and may see the ETag. */
const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "ETag, Retry-After, X-Metadata-Hash",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Access-Control-Allow-Headers": "If-None-Match",
  "Access-Control-Max-Age": "86400",
};
const PREFLIGHT_ANSWER = "Access-Control-Allow-Origin: *, Access-Control-Allow-Methods: GET, HEAD, OPTIONS, Access-Control-Allow-Headers: If-None-Match.";

/** A token's metadata may change with any block: wallets keep it a minute and then ask with its ETag. */
const TOKEN_CACHE_CONTROL = "public, max-age=60";
/** A token not minted yet may be in a moment. */
const NOT_FOUND_CACHE_CONTROL = "public, max-age=5";
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const CACHE_HEADERS = {
  ETag: { description: "Changes when the answer does; send it back as If-None-Match for a 304.", schema: { type: "string" } },
  "Cache-Control": { description: `${TOKEN_CACHE_CONTROL} (5 s for a 404).`, schema: { type: "string" } },
  "Access-Control-Allow-Origin": { description: "*: wallet web apps fetch it from their own origin.", schema: { type: "string" } },
};

const METADATA_HASH_HEADER = "X-Metadata-Hash";

/**
 * The registry's tokens as wallets and marketplaces read them, public (no API key), at the address the
 * registry's tokenURI (base URI + decimal tokenId) and contractURI point at: `GET /tokens/{tokenId}`
 * answers ERC-721 metadata JSON, `GET /tokens/collection` the collection's (ERC-7572). Limited per
 * client IP; CORS open to any origin; cacheable with an ETag.
 */
@ApiTags("tokens")
@Controller(TOKENS_PATH)
export class TokensController {
  private readonly logger = new Logger(TokensController.name);

  constructor(
    private readonly facts: TokenFactsService,
    private readonly ledger: LedgerMetadataStore,
    private readonly collection: CollectionService,
    private readonly rateLimit: MetadataRateLimit,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  @Get(COLLECTION_SEGMENT)
  @Public()
  @ApiOperation({
    operationId: "getCollectionMetadata",
    summary: "The collection's metadata (ERC-7572), where the registry's contractURI points; no API key",
    description: "name and symbol read from the registry; description, image and external_link configured (COLLECTION_*).",
  })
  @ApiOkResponse({ type: CollectionMetadataDto, headers: CACHE_HEADERS })
  @ApiResponse({ status: 304, description: "Not modified: the If-None-Match ETag is still the answer's." })
  @ApiTooManyRequestsResponse({ type: ErrorBodyDto, description: "rate_limited: too many requests from this client IP; see Retry-After." })
  @ApiServiceUnavailableResponse({
    type: ErrorBodyDto,
    description: "service_unavailable: the chain cannot be read just now, or none is configured; see Retry-After.",
  })
  async collectionMetadata(@Req() request: Request, @Res() response: Response): Promise<void> {
    response.set(CORS_HEADERS);
    if (!(await this.allowed(request, response))) return;
    if (!this.facts.configured) return unavailable(response, "No chain is configured, so there is no collection to describe.");
    try {
      sendCacheable(request, response, await this.collection.metadata(this.publicBaseUrl(request)));
    } catch (error) {
      this.logger.warn(`collection metadata could not be read: ${(error as Error).message}`);
      unavailable(response, "The chain could not be read just now.");
    }
  }

  @Get(":tokenId")
  @Public()
  @ApiOperation({
    operationId: "getTokenMetadata",
    summary: "A token's ERC-721 metadata JSON, where the registry's tokenURI points; no API key",
    description:
      "Read from the registry and its logs (the ticket's flags, resales, last price and its event's details), except what the integrator " +
      "gave the ticket or its event, read from the ledger: name, description, animation_url, the image (the ticket's uri, else the event's " +
      "ticketImageUrl) and the attributes after the chain's. Never shows a raw ticketId or eventId. Answers as of the chain's latest block, " +
      "at most METADATA_HEAD_MAX_AGE_MS old; tokens are kept in memory until the registry's ERC-4906 logs say they changed. Limited per client IP " +
      "(METADATA_RATE_LIMIT_REQUESTS per METADATA_RATE_LIMIT_WINDOW_SECONDS). States the keccak-256 of the ticket's canonical off-chain metadata " +
      "(metadata_hash, and the X-Metadata-Hash header) and the document hashed (metadata_document), which the registry records with every " +
      "updateTicket and every sale of a ticket with metadata: docs/integrators/token-metadata.md shows a holder checking it.",
  })
  @ApiParam({ name: "tokenId", description: "The tokenId in decimal, as tokenURI ends: eventIndex << 64 | serial.", example: "18446744073709551617" })
  @ApiOkResponse({
    type: TokenMetadataDto,
    headers: {
      ...CACHE_HEADERS,
      [METADATA_HASH_HEADER]: {
        description: "metadata_hash: keccak-256 of the canonical off-chain metadata served, to compare with the registry's TicketsMetadataUpdated record.",
        schema: { type: "string" },
      },
    },
  })
  @ApiResponse({ status: 304, description: "Not modified: the If-None-Match ETag is still the answer's." })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: "invalid_field (field tokenId): not a decimal integer below 2^256." })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "token_not_found: no such token was minted (yet)." })
  @ApiTooManyRequestsResponse({ type: ErrorBodyDto, description: "rate_limited: too many requests from this client IP; see Retry-After." })
  @ApiServiceUnavailableResponse({
    type: ErrorBodyDto,
    description: "service_unavailable: the chain or the database cannot be read just now, or no chain is configured; see Retry-After.",
  })
  async tokenMetadata(@Param("tokenId") rawTokenId: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    response.set(CORS_HEADERS);
    if (!(await this.allowed(request, response))) return;
    const tokenId = parseTokenId(rawTokenId);
    if (tokenId === null) return refuse(response, 400, invalidField("tokenId", "must be a token id: a decimal integer below 2^256"));
    if (!this.facts.configured) return unavailable(response, "No chain is configured, so there are no tokens to describe.");
    let answer: TokenMetadataDto | null;
    try {
      // The ledger is asked for the metadata of a token the chain holds only: a made-up tokenId costs no query.
      const facts = await this.facts.facts(tokenId);
      const metadata = facts && (await this.ledger.metadataOf(tokenId));
      answer = facts &&
        metadata && { ...tokenMetadata(facts, metadata, tokenPageUrl(this.publicBaseUrl(request), tokenId)), ...servedMetadata(metadata.ticket) };
    } catch (error) {
      this.logger.warn(`metadata of token ${tokenId} could not be read: ${(error as Error).message}`);
      return unavailable(response, "The chain or the ledger could not be read just now.");
    }
    if (!answer) {
      response.set("Cache-Control", NOT_FOUND_CACHE_CONTROL);
      return refuse(response, 404, errorDetail("token_not_found", `No token ${tokenId} was minted by this registry.`));
    }
    response.set(METADATA_HASH_HEADER, answer.metadata_hash);
    sendCacheable(request, response, answer);
  }

  @Options(COLLECTION_SEGMENT)
  @Public()
  @HttpCode(204)
  @ApiOperation({ operationId: "collectionMetadataPreflight", summary: "CORS preflight of the collection metadata: any origin may GET it" })
  @ApiNoContentResponse({ description: PREFLIGHT_ANSWER })
  collectionPreflight(@Res({ passthrough: true }) response: Response): void {
    response.set(PREFLIGHT_HEADERS);
  }

  @Options(":tokenId")
  @Public()
  @HttpCode(204)
  @ApiOperation({ operationId: "tokenMetadataPreflight", summary: "CORS preflight of a token's metadata: any origin may GET it" })
  @ApiParam({ name: "tokenId", description: "The tokenId in decimal." })
  @ApiNoContentResponse({ description: PREFLIGHT_ANSWER })
  tokenPreflight(@Res({ passthrough: true }) response: Response): void {
    response.set(PREFLIGHT_HEADERS);
  }

  private async allowed(request: Request, response: Response): Promise<boolean> {
    if (await this.rateLimit.allow(clientKeyOfRequest(request), response)) return true;
    refuse(response, 429, errorDetail("rate_limited", "Too many metadata requests from this address; see Retry-After."));
    return false;
  }

  /**
   * PUBLIC_BASE_URL (production requires it), or else the address this server answered on: never the
   * Host header, which would put an address of the client's choosing into answers caches keep.
   */
  private publicBaseUrl(request: Request): string {
    const socket = request.socket as Request["socket"] & { encrypted?: boolean };
    return (
      this.config.app.publicBaseUrl ??
      connectionBaseUrl({ encrypted: socket.encrypted === true, localAddress: socket.localAddress, localPort: socket.localPort })
    );
  }
}

/**
 * 200 with the body, its ETag and Cache-Control; or 304 when the request's If-None-Match names that ETag.
 * Compared here rather than by Express, which answers 200 to any request that also says
 * Cache-Control: no-cache, as fetch() does whenever it is given an If-None-Match.
 */
function sendCacheable(request: Request, response: Response, body: object): void {
  const json = JSON.stringify(body);
  const etag = `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"`;
  response.set({ "Cache-Control": TOKEN_CACHE_CONTROL, ETag: etag });
  if (matchesEtag(request.get("if-none-match"), etag)) {
    response.status(304).end();
    return;
  }
  response.status(200).type("application/json").send(json);
}

/** Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for If-None-Match). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

function refuse(response: Response, status: number, detail: ErrorDetail): void {
  response.status(status).json({ status: "error", error: detail });
}

function unavailable(response: Response, message: string): void {
  response.set("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  refuse(response, 503, errorDetail("service_unavailable", message));
}
