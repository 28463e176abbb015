import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from "@nestjs/common";
import { ApiBadRequestResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from "@nestjs/swagger";
import type { Request, Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { CountsActions } from "../auth/rate-limit.guard";
import { RequiresScope } from "../auth/required-scope";
import type { ActionDescriptor } from "../ledger/action-descriptor";
import { LedgerService } from "../ledger/ledger.service";
import { QUEUE_FULL_RETRY_AFTER_HEADER, retryAfterQueueFull } from "../ledger/queue-full";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { ENDPOINT, type EndpointName } from "../common/actions";
import { ApiCommonReadResponses, ApiCommonWriteResponses } from "../common/http/api-responses";
import { requireItemArray } from "../common/http/item-array";
import { rawId } from "../common/http/raw-ids";
import { requestIdOf } from "../common/http/request-id";
import { type AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { ResoldTicketDto } from "./dto/resold-ticket.dto";
import { SoldTicketDto } from "./dto/sold-ticket.dto";
import { TicketMomentDto } from "./dto/ticket-moment.dto";
import { TicketResultDto } from "./dto/ticket-result.dto";
import { TicketPageDto, TicketViewDto } from "./dto/ticket-view.dto";
import { HolderQuery, MAX_PAGE_SIZE } from "./holder-query";
import { TICKET_ACCEPTANCE, type TicketParts, type TicketPlan } from "./ticket-acceptance";
import { TicketActions } from "./ticket-actions";
import { TicketsService } from "./tickets.service";

const RESULTS =
  'An array in request order: {txPromise, ticketId, status: "success"} for each accepted item, {ticketId, status: "error", error} for each refused one ' +
  "(on /api/v1/sold a ticket_exists item also carries the txPromise of the ticket's sale). When an item was refused queue_full, the answer carries Retry-After.";

@ApiTags("tickets")
@Controller("api/v1")
export class TicketsController {
  constructor(
    private readonly ledger: LedgerService,
    private readonly tickets: TicketsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  @Post(ENDPOINT.sold)
  @HttpCode(200)
  @CountsActions()
  @ApiOperation({
    operationId: "registerSales",
    summary: "Register primary sales",
    description: "Up to 100 tickets; each is minted as an NFT to its event's custody address. Callback action: sold.",
  })
  @ApiBody({ type: [SoldTicketDto] })
  @ApiOkResponse({ type: [TicketResultDto], description: RESULTS, headers: QUEUE_FULL_RETRY_AFTER_HEADER })
  @ApiCommonWriteResponses()
  sold(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.accept(organization, body, TicketActions.sold, ENDPOINT.sold, { request, response });
  }

  @Post(ENDPOINT.resold)
  @HttpCode(200)
  @CountsActions()
  @ApiOperation({
    operationId: "registerResales",
    summary: "Register resales",
    description: "Up to 100 tickets; ownership moves to a fresh holder address. Callback action: resold.",
  })
  @ApiBody({ type: [ResoldTicketDto] })
  @ApiOkResponse({ type: [TicketResultDto], description: RESULTS, headers: QUEUE_FULL_RETRY_AFTER_HEADER })
  @ApiCommonWriteResponses()
  resold(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.accept(organization, body, TicketActions.resold, ENDPOINT.resold, { request, response });
  }

  @Post(ENDPOINT.scanned)
  @HttpCode(200)
  @CountsActions()
  @RequiresScope("scan")
  @ApiOperation({
    operationId: "registerCheckIns",
    summary: "Register check-ins (scans)",
    description: "Up to 100 tickets; one-way; a repeated scan is accepted. Callback action: scanned.",
  })
  @ApiBody({ type: [TicketMomentDto] })
  @ApiOkResponse({ type: [TicketResultDto], description: RESULTS, headers: QUEUE_FULL_RETRY_AFTER_HEADER })
  @ApiCommonWriteResponses()
  checkIn(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.accept(organization, body, TicketActions.checkIn, ENDPOINT.scanned, { request, response });
  }

  @Post(ENDPOINT.checkedin)
  @HttpCode(200)
  @CountsActions()
  @RequiresScope("scan")
  @ApiOperation({
    operationId: "registerCheckInsAlias",
    summary: "Register check-ins (alias of /api/v1/scanned)",
    description: "Same as POST /api/v1/scanned.",
  })
  @ApiBody({ type: [TicketMomentDto] })
  @ApiOkResponse({ type: [TicketResultDto], description: RESULTS, headers: QUEUE_FULL_RETRY_AFTER_HEADER })
  @ApiCommonWriteResponses()
  checkInAlias(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.accept(organization, body, TicketActions.checkIn, ENDPOINT.checkedin, { request, response });
  }

  @Post(ENDPOINT.invalidated)
  @HttpCode(200)
  @CountsActions()
  @ApiOperation({
    operationId: "registerInvalidations",
    summary: "Invalidate tickets",
    description: "Up to 100 tickets; a checked-in ticket cannot be invalidated. Callback action: invalidated.",
  })
  @ApiBody({ type: [TicketMomentDto] })
  @ApiOkResponse({ type: [TicketResultDto], description: RESULTS, headers: QUEUE_FULL_RETRY_AFTER_HEADER })
  @ApiCommonWriteResponses()
  invalidated(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.accept(organization, body, TicketActions.invalidated, ENDPOINT.invalidated, { request, response });
  }

  @Get("tickets")
  @ApiOperation({
    operationId: "listTicketsByHolder",
    summary: "Your tickets whose token an address holds (entry by wallet, support, resale checks)",
    description:
      "The holder is the token's owner on chain as confirmed, as each ticket view's holder says: a wallet after the claim and after every " +
      "transfer between wallets, a custody or holder address while in custody. Only your organization's tickets. Pages of at most " +
      `${MAX_PAGE_SIZE}, in tokenId order: pass nextCursor as cursor for the next.`,
  })
  @ApiQuery({
    name: "holder",
    required: true,
    description: "An address, lower case or with its EIP-55 checksum.",
    example: "0x52908400098527886E0F7030069857D2E4169EE7",
  })
  @ApiQuery({ name: "cursor", required: false, description: "The nextCursor of the page before." })
  @ApiQuery({ name: "limit", required: false, schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE } })
  @ApiOkResponse({ type: TicketPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: "invalid_field naming holder (missing or not an address), cursor or limit." })
  @ApiCommonReadResponses()
  byHolder(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Query("holder") holder: unknown,
    @Query("cursor") cursor: unknown,
    @Query("limit") limit: unknown,
  ): Promise<TicketPageDto> {
    return this.tickets.byHolder(organization.id, HolderQuery.parse(holder, cursor, limit));
  }

  @Get("tickets/:ticketId")
  @ApiOperation({ operationId: "getTicket", summary: "A ticket's accepted state, on-chain facts and action history" })
  @ApiOkResponse({ type: TicketViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "ticket_not_found (also for another organization's ticket)." })
  @ApiCommonReadResponses()
  view(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("ticketId") ticketId: string): Promise<TicketViewDto> {
    return this.tickets.view(organization.id, ticketId);
  }

  private async accept(
    organization: AuthenticatedOrganization,
    body: unknown,
    descriptor: ActionDescriptor<object, TicketPlan, TicketParts>,
    requestedAs: EndpointName,
    { request, response }: { request: Request; response: Response },
  ): Promise<TicketResultDto[]> {
    const raw = requireItemArray(body, this.config.limits.ticketItems, "tickets");
    const outcomes = await this.ledger.acceptItems(
      TICKET_ACCEPTANCE,
      organization,
      raw.map((item) => ({ descriptor, requestedAs, raw: item })),
      requestIdOf(request),
    );
    retryAfterQueueFull(response, outcomes);
    // A sale refused as ticket_exists (a retried /sold, say) carries the promise of the sale that made the ticket.
    const exists = outcomes.flatMap((outcome, position) => (outcome.error?.code === "ticket_exists" ? [rawId(raw[position], "ticketId") as string] : []));
    const sales = requestedAs === ENDPOINT.sold ? await this.tickets.salePromises(organization.id, exists) : new Map<string, string>();
    return outcomes.map((outcome, position) => {
      const ticketId = rawId(raw[position], "ticketId");
      if (!outcome.error) return { txPromise: outcome.actionId, ticketId, status: "success" };
      const sale = outcome.error.code === "ticket_exists" && ticketId !== null ? sales.get(ticketId) : undefined;
      return sale ? { ticketId, status: "error", error: outcome.error, txPromise: sale } : { ticketId, status: "error", error: outcome.error };
    });
  }
}
