import { Controller, Get, Headers, Query, Req, Res } from "@nestjs/common";
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  getSchemaPath,
} from "@nestjs/swagger";
import type { Request, Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../../auth/authenticated-organization";
import { ErrorBodyDto } from "../../common/errors/error-body.dto";
import { ApiCommonReadResponses } from "../../common/http/api-responses";
import { ActionStatusDto } from "../dto/action-status.dto";
import { type ActionEventsQuery, ActionEventsService, MAX_STREAM_PROMISES, MAX_STREAMS_PER_ORGANIZATION, STATUS_EVENT } from "./action-events.service";

/** Registered before ActionsController, so that `events` is not taken for a promise. */
@ApiTags("actions")
@ApiExtraModels(ActionStatusDto)
@Controller("api/v1/actions")
export class ActionEventsController {
  constructor(private readonly events: ActionEventsService) {}

  @Get("events")
  @ApiOperation({
    operationId: "streamActionEvents",
    summary: "Live status of your actions (Server-Sent Events)",
    description:
      `A text/event-stream of every status change of the actions the filter takes: those of an event (eventId), of one of its tickets ` +
      `(eventId and ticketId), or up to ${MAX_STREAM_PROMISES} promises (promises=a,b,c). Each change is an event named \`${STATUS_EVENT}\` ` +
      "whose data is the action's state right after the change, as GET /api/v1/actions/{promise} answers it, and whose id is its place in " +
      "the service's change log. Acceptance is not a change (the accepting answer carries it): a sale shows pending, then confirmed or " +
      "error; an action final at acceptance (no_broadcast_required) shows once. Without Last-Event-ID the stream starts with the matching actions' history (the log keeps 7 days), then " +
      "follows live; with it (EventSource sends it when it reconnects, or pass lastEventId), it resumes right after that id: nothing is " +
      `missed or repeated. A \`: heartbeat\` comment comes every 15 s. At most ${MAX_STREAMS_PER_ORGANIZATION} streams per organization are open at a time on one instance ` +
      "(the next answers 429 rate_limited). Changes of one action come in the order they were made.",
  })
  @ApiQuery({ name: "eventId", required: false, description: "The event whose actions (its own and its tickets') to follow." })
  @ApiQuery({ name: "ticketId", required: false, description: "With eventId: only this ticket's actions." })
  @ApiQuery({
    name: "promises",
    required: false,
    description: `Comma-separated txPromise / actionPromise ids, at most ${MAX_STREAM_PROMISES}; ids of no action of yours never produce an event.`,
  })
  @ApiQuery({ name: "lastEventId", required: false, description: "Resume after this event id (for clients that cannot send the Last-Event-ID header)." })
  @ApiHeader({ name: "Last-Event-ID", required: false, description: "Resume after this event id (EventSource sends it when it reconnects)." })
  @ApiOkResponse({
    description: `Server-Sent Events: \`id: {position}\`, \`event: ${STATUS_EVENT}\`, \`data: {ActionStatus as JSON}\`; comment lines as heartbeats.`,
    content: { "text/event-stream": { schema: { $ref: getSchemaPath(ActionStatusDto) } } },
  })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: "invalid_field: no filter, ticketId without eventId, a malformed promise or Last-Event-ID, too many promises.",
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "event_not_found or ticket_not_found (also for another organization's)." })
  @ApiCommonReadResponses()
  async stream(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Query() query: ActionEventsQuery,
    @Headers("last-event-id") lastEventId: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await this.events.open(organization.id, query, lastEventId, request, response);
  }
}
