import { ApiProperty } from "@nestjs/swagger";

import { UINT64_ANSWER_SCHEMA } from "../../common/http/openapi-schemas";
import { ActionViewDto } from "../../ledger/dto/action-view.dto";

export class EventChainViewDto {
  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, example: 1, description: "The event's index in the registry; its tokenIds are eventIndex << 64 | serial." })
  eventIndex: number | string;

  @ApiProperty({ example: "0x3b7c…", description: "sha256(abi.encode(ticketeerId, eventId)): the event's key on chain." })
  eventKey: string;

  @ApiProperty({ description: "The registration is confirmed on chain." })
  registered: boolean;

  @ApiProperty({ description: "The cancellation is confirmed on chain: the registry reads every ticket of the event as cancelled." })
  cancelled: boolean;
}

/** An event as accepted, what the chain confirmed, and its own actions in order. */
export class EventViewDto {
  @ApiProperty() eventId: string;
  @ApiProperty() eventName: string;
  @ApiProperty() ticketeerId: string;
  @ApiProperty() ticketeerName: string;
  @ApiProperty() currency: string;
  @ApiProperty() shopUrl: string;
  @ApiProperty() imageUrl: string;
  @ApiProperty({ description: "The event's description as accepted; blank when it has none. Not on chain." }) description: string;
  @ApiProperty({
    description: "The image of the event's tickets that have no uri of their own, as accepted; blank when it has none (imageUrl stands in). Not on chain.",
  })
  ticketImageUrl: string;
  @ApiProperty() latitude: number;
  @ApiProperty() longitude: number;
  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, description: "Unix seconds; a decimal string when above 2^53 - 1." }) startTime: number | string;
  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, description: "Unix seconds; a decimal string when above 2^53 - 1." }) endTime: number | string;
  @ApiProperty() callbackUrl: string;
  @ApiProperty({
    type: String,
    format: "date-time",
    nullable: true,
    description: "Since when every callback attempt to callbackUrl failed; null while the last attempt was delivered (or none was made).",
  })
  callbackFailingSince: string | null;
  @ApiProperty({
    type: String,
    format: "date-time",
    nullable: true,
    description:
      "When callbackUrl was disabled for failing every attempt for the operator's WEBHOOK_DISABLE_AFTER_HOURS (120 by default): its callbacks are " +
      "kept and not attempted. An updateEvent carrying a callbackUrl (the same or another) enables it again; then redeliver what it missed.",
  })
  callbackDisabledAt: string | null;
  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, description: "Tickets sold (accepted); a decimal string when above 2^53 - 1." }) ticketsSold: number | string;
  @ApiProperty({
    description:
      "The event is cancelled (accepted): every one of its tickets reads as cancelled, and none can be sold, resold, checked in, invalidated or claimed.",
  })
  cancelled: boolean;
  @ApiProperty({ type: String, format: "date-time", nullable: true, description: "When its cancellation was accepted; null while it is not cancelled." })
  cancelledAt: string | null;
  @ApiProperty({ type: EventChainViewDto }) chain: EventChainViewDto;
  @ApiProperty({ type: [ActionViewDto], description: "Registration, updates and cancellation; ticket actions are on the tickets." }) actions: ActionViewDto[];
}
