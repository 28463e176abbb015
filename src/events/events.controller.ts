import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from "@nestjs/common";
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiTooManyRequestsResponse,
} from "@nestjs/swagger";
import type { Request, Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { CountsActions } from "../auth/rate-limit.guard";
import { LedgerService } from "../ledger/ledger.service";
import { retryAfterQueueFull } from "../ledger/queue-full";
import { ENDPOINT } from "../common/actions";
import { ApiError } from "../common/errors/api-error";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { ApiCommonReadResponses, ApiCommonWriteResponses } from "../common/http/api-responses";
import { requireObjectBody } from "../common/http/item-array";
import { rawId } from "../common/http/raw-ids";
import { requestIdOf } from "../common/http/request-id";
import { EventAcceptedDto, EventRefusedDto } from "./dto/event-accepted.dto";
import { EventViewDto } from "./dto/event-view.dto";
import { CreateEventDto } from "./dto/new-event.dto";
import { EVENT_ACCEPTANCE } from "./event-acceptance";
import { EventActions } from "./event-actions";
import { EventsService } from "./events.service";

const STATUS_OF_CODE: Record<string, number> = { event_exists: 409, event_not_found: 404, event_cancelled: 409, queue_full: 429 };

/** The 429 of the endpoints that accept an event's action. */
const TOO_MANY_EVENT_ACTIONS = {
  type: EventRefusedDto,
  description:
    "queue_full, with its eventId: the organization has ORG_MAX_QUEUED_ACTIONS actions accepted and not yet on chain; or rate_limited, without eventId " +
    "(see the RateLimit-* headers). Both with Retry-After.",
  headers: { "Retry-After": { description: "Seconds to wait before sending the request again.", schema: { type: "integer" as const, minimum: 1 } } },
};

@ApiTags("events")
@Controller(`api/v1/${ENDPOINT.events}`)
export class EventsController {
  constructor(
    private readonly ledger: LedgerService,
    private readonly events: EventsService,
  ) {}

  @Post()
  @HttpCode(200)
  @CountsActions()
  @ApiOperation({
    operationId: "registerEvent",
    summary: "Register an event",
    description: "Registers the event and, asynchronously, on chain. Callback action: newEvent, once the chain confirms it.",
  })
  @ApiBody({ type: CreateEventDto })
  @ApiOkResponse({ type: EventAcceptedDto })
  @ApiBadRequestResponse({
    type: EventRefusedDto,
    description:
      "The event refused: invalid_field or ticketeer_mismatch, with its eventId. The body refused: invalid_json, invalid_body (not one JSON object), https_required, or a malformed Idempotency-Key (invalid_field), without eventId.",
  })
  @ApiConflictResponse({ type: EventRefusedDto, description: "event_exists: the eventId is already registered by this organization." })
  @ApiTooManyRequestsResponse(TOO_MANY_EVENT_ACTIONS)
  @ApiCommonWriteResponses()
  async create(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() raw: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<EventAcceptedDto> {
    // One event, a JSON object: anything else is not what the endpoint takes (invalid_body, like a
    // non-array on the per-ticket endpoints); invalid_item is for the items of an array.
    const body = requireObjectBody(raw, "one event");
    const [outcome] = await this.ledger.acceptItems(
      EVENT_ACCEPTANCE,
      organization,
      [{ descriptor: EventActions.create, requestedAs: ENDPOINT.events, raw: body }],
      requestIdOf(request),
    );
    const eventId = rawId(body, "eventId");
    retryAfterQueueFull(response, [outcome]);
    if (outcome.error) throw new ApiError(STATUS_OF_CODE[outcome.error.code] ?? 400, outcome.error, { eventId });
    return { txPromise: outcome.actionId, eventId: eventId as string, status: "success" };
  }

  @Post(`:eventId/${ENDPOINT.cancel}`)
  @HttpCode(200)
  @CountsActions()
  @ApiOperation({
    operationId: "cancelEvent",
    summary: "Cancel an event, with every one of its tickets",
    description:
      "Cancels the event in one action and, asynchronously, in one write on chain whatever the number of its tickets: from then on every " +
      "ticket of the event reads as cancelled (its view, its token's metadata, /verify), and its sales, resales, check-ins, invalidations " +
      "and claims are refused with event_cancelled, at once and by the registry. Tokens already claimed stay with their holders. Its " +
      "actions accepted before go first, on chain too. Callback action: cancelledEvent, to the event's receivers, once the chain confirms " +
      "it. A waiting cancellation can be withdrawn (POST /api/v1/actions/{promise}/cancel): the event and its tickets are as before. No body.",
  })
  @ApiParam({ name: "eventId", description: "The event to cancel, as registered." })
  @ApiOkResponse({ type: EventAcceptedDto })
  @ApiBadRequestResponse({
    type: EventRefusedDto,
    description: "invalid_field: the eventId of the path is not an id (field eventId); or a malformed Idempotency-Key (invalid_field), without eventId.",
  })
  @ApiNotFoundResponse({ type: EventRefusedDto, description: "event_not_found: no such event (also for another organization's event)." })
  @ApiConflictResponse({ type: EventRefusedDto, description: "event_cancelled: the event is cancelled already (its first cancellation stands)." })
  @ApiTooManyRequestsResponse(TOO_MANY_EVENT_ACTIONS)
  @ApiCommonWriteResponses()
  async cancel(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Param("eventId") eventId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<EventAcceptedDto> {
    const [outcome] = await this.ledger.acceptItems(
      EVENT_ACCEPTANCE,
      organization,
      [{ descriptor: EventActions.cancel, requestedAs: ENDPOINT.cancel, raw: { eventId } }],
      requestIdOf(request),
    );
    retryAfterQueueFull(response, [outcome]);
    if (outcome.error) throw new ApiError(STATUS_OF_CODE[outcome.error.code] ?? 400, outcome.error, { eventId });
    return { txPromise: outcome.actionId, eventId, status: "success" };
  }

  @Get(":eventId")
  @ApiOperation({ operationId: "getEvent", summary: "An event's accepted state, on-chain facts and action history" })
  @ApiOkResponse({ type: EventViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "event_not_found (also for another organization's event)." })
  @ApiCommonReadResponses()
  view(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("eventId") eventId: string): Promise<EventViewDto> {
    return this.events.view(organization, eventId);
  }
}
