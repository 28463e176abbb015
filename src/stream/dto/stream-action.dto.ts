import type { Type } from "@nestjs/common";
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from "@nestjs/swagger";

import { ErrorDetailDto } from "../../common/errors/error-body.dto";
import { CancelledEventDto } from "../../events/dto/cancelled-event.dto";
import { NewEventDto } from "../../events/dto/new-event.dto";
import { UpdateEventDto } from "../../events/dto/update-event.dto";
import { ClaimedTicketDto } from "../../tickets/dto/claimed-ticket.dto";
import { ResoldTicketDto } from "../../tickets/dto/resold-ticket.dto";
import { SoldTicketDto } from "../../tickets/dto/sold-ticket.dto";
import { TicketMomentDto } from "../../tickets/dto/ticket-moment.dto";
import { UpdateTicketDto } from "../../tickets/dto/update-ticket.dto";
import { STREAM_ACTION_NAMES, type StreamActionName } from "../stream-actions";

/** The data schema of each stream action: what the per-action endpoint takes for one item. */
export const STREAM_ACTION_DATA: Record<StreamActionName, Type<unknown>> = {
  newEvent: NewEventDto,
  updateEvent: UpdateEventDto,
  soldTicket: SoldTicketDto,
  updateTicket: UpdateTicketDto,
  resoldTicket: ResoldTicketDto,
  scannedTicket: TicketMomentDto,
  checkedInTicket: TicketMomentDto,
  claimedTicket: ClaimedTicketDto,
  invalidatedTicket: TicketMomentDto,
  cancelledEvent: CancelledEventDto,
};

/**
 * One schema per action ({action: that one name, data: its data schema}), named Stream<Action>ActionDto:
 * the members of the stream item's oneOf differ in `action`, so exactly one matches any valid item.
 */
export const STREAM_ACTION_ITEMS = Object.fromEntries(
  STREAM_ACTION_NAMES.map((name) => {
    const item = class {};
    Object.defineProperty(item, "name", { value: `Stream${name[0].toUpperCase()}${name.slice(1)}ActionDto` });
    ApiProperty({ type: String, enum: [name], example: name })(item.prototype, "action");
    ApiProperty({ type: STREAM_ACTION_DATA[name], description: "Fields not in this schema are ignored and never stored." })(item.prototype, "data");
    return [name, item];
  }),
) as Record<StreamActionName, Type<unknown>>;

/** The schema of one /stream entry: a union discriminated by `action`. */
export const STREAM_ACTION_SCHEMA = {
  oneOf: STREAM_ACTION_NAMES.map((name) => ({ $ref: getSchemaPath(STREAM_ACTION_ITEMS[name]) })),
  discriminator: {
    propertyName: "action",
    mapping: Object.fromEntries(STREAM_ACTION_NAMES.map((name) => [name, getSchemaPath(STREAM_ACTION_ITEMS[name])])),
  },
};

/** Puts every stream item schema (and the data schemas they name) in the document's components. */
export const ApiStreamActionModels = () => ApiExtraModels(...new Set(Object.values(STREAM_ACTION_ITEMS)), ...new Set(Object.values(STREAM_ACTION_DATA)));

export class StreamResultDto {
  @ApiProperty({ enum: ["success", "error"] })
  status: "success" | "error";

  @ApiProperty({ type: String, nullable: true, description: "Echo of the action (null when it was not a string)." })
  action: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: "Present for event actions and soldTicket: the eventId as sent, null when not a string." })
  eventId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: "Present for ticket actions: the ticketId as sent, null when not a string." })
  ticketId?: string | null;

  @ApiPropertyOptional({ format: "uuid", description: "Present on success: store it to query the action's status." })
  actionPromise?: string;

  @ApiPropertyOptional({ type: ErrorDetailDto, description: "Present when status is error." })
  error?: ErrorDetailDto;
}

export class StreamResponseDto {
  @ApiProperty({ enum: ["success"], description: "The request was taken; each action has its own status in data." })
  status: "success";

  @ApiProperty({ type: [StreamResultDto], description: "One entry per action, in request order." })
  data: StreamResultDto[];
}
