import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from "@nestjs/swagger";

import { ErrorDetailDto } from "../../common/errors/error-body.dto";
import { NewEventDto } from "../../events/dto/new-event.dto";
import { UpdateEventDto } from "../../events/dto/update-event.dto";
import { ClaimedTicketDto } from "../../tickets/dto/claimed-ticket.dto";
import { ResoldTicketDto } from "../../tickets/dto/resold-ticket.dto";
import { SoldTicketDto } from "../../tickets/dto/sold-ticket.dto";
import { TicketMomentDto } from "../../tickets/dto/ticket-moment.dto";
import { UpdateTicketDto } from "../../tickets/dto/update-ticket.dto";
import { STREAM_ACTION_NAMES, type StreamActionName } from "../stream-actions";

@ApiExtraModels(NewEventDto, UpdateEventDto, SoldTicketDto, UpdateTicketDto, ResoldTicketDto, TicketMomentDto, ClaimedTicketDto)
export class StreamActionDto {
  @ApiProperty({ enum: STREAM_ACTION_NAMES, example: "soldTicket" })
  action: StreamActionName;

  @ApiProperty({
    description:
      "The action's data: newEvent → NewEventDto, updateEvent → UpdateEventDto, soldTicket → SoldTicketDto, updateTicket → UpdateTicketDto, resoldTicket → ResoldTicketDto, scannedTicket / checkedInTicket / invalidatedTicket → TicketMomentDto, claimedTicket → ClaimedTicketDto. Fields not listed there are ignored and never stored.",
    oneOf: [NewEventDto, UpdateEventDto, SoldTicketDto, UpdateTicketDto, ResoldTicketDto, TicketMomentDto, ClaimedTicketDto].map((dto) => ({
      $ref: getSchemaPath(dto),
    })),
    example: { eventId: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10", ticketId: "0b9e2c1a-7d4f-4a7e-8f3e-5c2d1b0a9f87", price: "49.95" },
  })
  data: Record<string, unknown>;
}

export class StreamResultDto {
  @ApiProperty({ enum: ["success", "error"] })
  status: "success" | "error";

  @ApiProperty({ description: "Echo of the action (null when it was not a string)." })
  action: string | null;

  @ApiPropertyOptional({ description: "Present for event actions and soldTicket." })
  eventId?: string | null;

  @ApiPropertyOptional({ description: "Present for ticket actions." })
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
