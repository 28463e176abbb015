import { Controller, Get, Logger, Param, Query, Req, Res } from "@nestjs/common";
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from "@nestjs/swagger";
import type { Request, Response } from "express";

import { Public } from "../auth/authenticated-organization";
import { clientKeyOfRequest } from "../common/http/client-key";
import { idLookupProblem } from "../common/validation/client-id";
import { MAX_TEXT_LENGTH } from "../common/validation/text";
import { DECIMAL_TOKEN_ID_PATTERN, isTicketTokenId } from "../registry";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { EventActivityService } from "./event-activity.service";
import { eventNotFoundPage, eventPage } from "./event-page";
import { MetadataCheckService } from "./metadata-check.service";
import { VERIFY_PATH } from "./public-paths";
import { messagePage, notFoundPage, PAGE_HEADERS, ticketPage, tokenNotFoundPage, tokenPage } from "./ticket-page";
import { type EventFilter, type TicketVerification, TicketVerificationService } from "./ticket-verification.service";
import { VerifyRateLimit } from "./verify-rate-limit";

/** An event index in the URL: decimal digits, no leading zero (the registry's indexes are uint64). */
const EVENT_INDEX_PATTERN = /^[1-9][0-9]{0,19}$/;
const UINT64_MAX = (1n << 64n) - 1n;

const METADATA_CHECK_TEXT =
  "Shows whether the metadata GET /tokens/{tokenId} serves matches the chain (matches, differs, or none recorded): its hash against the " +
  "registry's latest TicketsMetadataUpdated record of the token, read from the receipts of the transactions the ledger names as its " +
  "metadata writes; and the event's served description and ticket image against the metadataHash of its details on chain. The served " +
  "metadata is the ledger's, the only part of the page not read from the chain.";

const HTML = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" } } } });

/**
 * `GET /verify/{ticketId}`: a public HTML page with what the chain records for a ticket (sale,
 * holder, flags, event, transaction hashes), for anyone holding a ticket id. No API key; limited per
 * client IP; read from the chain, never from the database.
 */
@ApiTags("verify")
@Controller(VERIFY_PATH)
export class VerifyController {
  private readonly logger = new Logger(VerifyController.name);

  constructor(
    private readonly verification: TicketVerificationService,
    private readonly rateLimit: VerifyRateLimit,
    private readonly activity: EventActivityService,
    private readonly metadata: MetadataCheckService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  @Get("tokens/:tokenId")
  @Public()
  @ApiOperation({
    operationId: "verifyTokenPage",
    summary: "Public page of one token (HTML, no API key): its ticket's sale, holder, flags, event and transaction hashes, read from the chain",
    description:
      "The page a token's metadata links to as external_url, addressed by tokenId: found by the tokenId the registry's TicketSold log indexes, " +
      "then read as GET /verify/{ticketId} reads a ticket. Shows no raw ticketId or eventId, which the chain never holds. Limited per client IP as that page is. " +
      METADATA_CHECK_TEXT,
  })
  @ApiProduces("text/html")
  @ApiParam({ name: "tokenId", description: "The tokenId in decimal", example: "18446744073709551617" })
  @ApiOkResponse(HTML("The token's ticket as the chain records it"))
  @ApiBadRequestResponse(HTML("Not a token id (decimal digits)"))
  @ApiNotFoundResponse(HTML("Not found on chain: no sale of this token is recorded"))
  @ApiTooManyRequestsResponse(HTML("Too many pages from this client IP; see Retry-After"))
  @ApiServiceUnavailableResponse(HTML("The chain cannot be read just now, or none is configured"))
  async tokenPage(@Param("tokenId") rawTokenId: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const send = (status: number, body: string) => response.status(status).set(PAGE_HEADERS).send(body);
    if (!(await this.rateLimit.allow(clientKeyOfRequest(request), response))) {
      send(429, messagePage("Too many requests", `This page allows ${this.rateLimit.describe} from one address. Try again later.`));
      return;
    }
    if (!DECIMAL_TOKEN_ID_PATTERN.test(rawTokenId)) {
      send(400, messagePage("Not a token id", "A token id is a decimal number, as the token's metadata links to it."));
      return;
    }
    if (!this.verification.configured) {
      send(503, messagePage("Chain not configured", "This service has no chain configured, so there is nothing to verify against."));
      return;
    }
    const tokenId = BigInt(rawTokenId);
    try {
      const verification = isTicketTokenId(tokenId) ? await this.verification.verifyToken(tokenId) : null;
      if (verification && verification.sales.length > 0) send(200, tokenPage(await this.withMetadataChecks(verification), tokenId));
      else send(404, tokenNotFoundPage(verification ?? (await this.verification.whereRead()), tokenId));
    } catch (error) {
      this.logger.warn(`token page could not read the chain: ${(error as Error).message}`);
      send(503, messagePage("Chain unavailable", "The chain could not be read just now. Try again in a moment."));
    }
  }

  @Get("events/:eventIndex")
  @Public()
  @ApiOperation({
    operationId: "verifyEventPage",
    summary: "Public page of one event (HTML, no API key): its details, counts, latest transactions and tokens, read from the chain",
    description:
      "Reads the registry's eventRecord view and the event's logs (details checked against the stored details hash), and tallies check-ins, " +
      "invalidations, claims and resales from the registry's logs from the event's registration block on, in bounded block ranges, kept per " +
      "event up to the confirmed block. Never reads the service's database. Limited per client IP as GET /verify/{ticketId} is.",
  })
  @ApiProduces("text/html")
  @ApiParam({ name: "eventIndex", description: "The event's index on chain in decimal (a tokenId's upper bits: tokenId >> 64)", example: "1" })
  @ApiOkResponse(HTML("The event as the chain records it"))
  @ApiBadRequestResponse(HTML("Not an event index (decimal digits, below 2^64)"))
  @ApiNotFoundResponse(HTML("Not found on chain: no event of this index is registered"))
  @ApiTooManyRequestsResponse(HTML("Too many pages from this client IP; see Retry-After"))
  @ApiServiceUnavailableResponse(HTML("The chain cannot be read just now, or none is configured"))
  async eventPage(@Param("eventIndex") rawEventIndex: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const send = (status: number, body: string) => response.status(status).set(PAGE_HEADERS).send(body);
    if (!(await this.rateLimit.allow(clientKeyOfRequest(request), response))) {
      send(429, messagePage("Too many requests", `This page allows ${this.rateLimit.describe} from one address. Try again later.`));
      return;
    }
    if (!EVENT_INDEX_PATTERN.test(rawEventIndex) || BigInt(rawEventIndex) > UINT64_MAX) {
      send(400, messagePage("Not an event index", "An event index is a decimal number below 2^64 (a token id's upper bits: tokenId >> 64)."));
      return;
    }
    if (!this.verification.configured) {
      send(503, messagePage("Chain not configured", "This service has no chain configured, so there is nothing to verify against."));
      return;
    }
    const eventIndex = BigInt(rawEventIndex);
    try {
      const found = await this.verification.verifyEvent(eventIndex);
      if (!found) {
        send(404, eventNotFoundPage(await this.verification.whereRead(), eventIndex));
        return;
      }
      const registeredBlock = found.event.registered?.blockNumber ?? this.config.chain.fromBlock;
      const activity = await this.activity.activity({ eventIndex, registeredBlock }, found.latestBlock);
      send(200, eventPage(found, found.event, activity));
    } catch (error) {
      this.logger.warn(`event page could not read the chain: ${(error as Error).message}`);
      send(503, messagePage("Chain unavailable", "The chain could not be read just now. Try again in a moment."));
    }
  }

  @Get(":ticketId")
  @Public()
  @ApiOperation({
    operationId: "verifyTicketPage",
    summary: "Public ticket page (HTML, no API key): the ticket's sale, holder, flags, event and transaction hashes, read from the chain",
    description:
      "Finds the sale by the indexed ticketHash (SHA-256 of the ticket id) of the registry's TicketSold logs, then reads the registry's ticket and " +
      "eventRecord views and the token's and event's logs. " +
      METADATA_CHECK_TEXT +
      " Ticket ids are unique per organization, so " +
      "one id may have several sales; eventId with ticketeerId picks the one of that event. Limited per client IP (VERIFY_RATE_LIMIT_REQUESTS per " +
      "VERIFY_RATE_LIMIT_WINDOW_SECONDS). Strict Content-Security-Policy: no scripts, no external assets.",
  })
  @ApiProduces("text/html")
  @ApiParam({
    name: "ticketId",
    description:
      "The ticket id as the organization sent it, URL-encoded (encodeURIComponent): every id the API accepts has this page. Control, " +
      "bidirectional and zero-width characters in an id are shown as their code points (⟨U+202E⟩), never as they are.",
  })
  @ApiQuery({ name: "ticketeerId", type: String, required: false, description: "With eventId: the organization of that event" })
  @ApiQuery({ name: "eventId", type: String, required: false, description: "With ticketeerId: show only the sale of this event" })
  @ApiOkResponse(HTML("The ticket as the chain records it"))
  @ApiBadRequestResponse(HTML("Not a ticket id (over 255 characters, counted as Unicode code points), or only one of eventId and ticketeerId"))
  @ApiNotFoundResponse(HTML("Not found on chain: no sale recorded under the id's hash (for that event, if named)"))
  @ApiTooManyRequestsResponse(HTML("Too many pages from this client IP; see Retry-After"))
  @ApiServiceUnavailableResponse(HTML("The chain cannot be read just now, or none is configured"))
  async page(
    @Param("ticketId") ticketId: string,
    @Query("eventId") eventId: unknown,
    @Query("ticketeerId") ticketeerId: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const send = (status: number, body: string) => response.status(status).set(PAGE_HEADERS).send(body);
    if (!(await this.rateLimit.allow(clientKeyOfRequest(request), response))) {
      send(429, messagePage("Too many requests", `This page allows ${this.rateLimit.describe} from one address. Try again later.`));
      return;
    }
    // Counted in code points, as acceptance counts them: every id the API took has its page. The
    // characters acceptance refuses are looked up all the same (an id accepted before that rule), and shown visibly.
    if (idLookupProblem(ticketId)) {
      send(400, messagePage("Not a ticket id", `Ticket ids are 1 to ${MAX_TEXT_LENGTH} characters (Unicode code points).`));
      return;
    }
    const named = [eventId, ticketeerId].filter((value) => value !== undefined);
    if (named.length === 1 || named.some((value) => typeof value !== "string" || idLookupProblem(value) !== null)) {
      send(400, messagePage("Bad query", `Name an event with both eventId and ticketeerId (1 to ${MAX_TEXT_LENGTH} characters each), or neither.`));
      return;
    }
    const filter: EventFilter | null = named.length === 2 ? { eventId: eventId as string, ticketeerId: ticketeerId as string } : null;
    if (!this.verification.configured) {
      send(503, messagePage("Chain not configured", "This service has no chain configured, so there is nothing to verify against."));
      return;
    }
    try {
      const verification = await this.verification.verify(ticketId, filter);
      if (verification.sales.length === 0) send(404, notFoundPage(verification, filter?.eventId));
      else send(200, ticketPage(await this.withMetadataChecks(verification)));
    } catch (error) {
      this.logger.warn(`verify page could not read the chain: ${(error as Error).message}`);
      send(503, messagePage("Chain unavailable", "The chain could not be read just now. Try again in a moment."));
    }
  }

  /** Each sale with whether its token's served metadata matches the chain's record. */
  private async withMetadataChecks(verification: TicketVerification): Promise<TicketVerification> {
    const sales = await Promise.all(
      verification.sales.map(async (sale) => ({ ...sale, metadataCheck: await this.metadata.check(sale.tokenId, sale.event.details?.metadataHash ?? null) })),
    );
    return { ...verification, sales };
  }
}
