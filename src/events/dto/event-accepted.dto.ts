import { ApiProperty } from "@nestjs/swagger";

export class EventAcceptedDto {
  @ApiProperty({ format: "uuid", description: "The id to query the registration's status with." })
  txPromise: string;

  @ApiProperty()
  eventId: string;

  @ApiProperty({ enum: ["success"] })
  status: "success";
}

export class EventRefusedDto {
  @ApiProperty({ type: String, nullable: true })
  eventId: string | null;

  @ApiProperty({ enum: ["error"] })
  status: "error";

  @ApiProperty({ example: { code: "event_exists", message: "Event 6f1c… is already registered.", field: "eventId" } })
  error: { code: string; message: string; field?: string };
}
