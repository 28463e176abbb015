import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { ErrorDetailDto } from "../../common/errors/error-body.dto";

export class EventAcceptedDto {
  @ApiProperty({ format: "uuid", description: "The id to query the registration's status with." })
  txPromise: string;

  @ApiProperty()
  eventId: string;

  @ApiProperty({ enum: ["success"] })
  status: "success";
}

/** A refused event: the error body, with the eventId as sent when the event itself was refused. */
export class EventRefusedDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "The body's eventId as sent (null when it is not a string) when the event was refused; absent when the body itself was (invalid_json, invalid_body, ...).",
  })
  eventId?: string | null;

  @ApiProperty({ enum: ["error"] })
  status: "error";

  @ApiProperty({ type: ErrorDetailDto, example: { code: "event_exists", message: "Event 6f1c… is already registered.", field: "eventId" } })
  error: ErrorDetailDto;
}
