import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { ErrorDetailDto } from "../../common/errors/error-body.dto";

/** One entry of a per-action response, in the position of its item. */
export class TicketResultDto {
  @ApiPropertyOptional({
    format: "uuid",
    description: "Present on success: the id to query the action's status with. On a ticket_exists refusal of /api/v1/sold: the promise of the ticket's sale.",
  })
  txPromise?: string;

  @ApiProperty({ type: String, nullable: true, description: "The item's ticketId as sent; null when the item had no string ticketId." })
  ticketId: string | null;

  @ApiProperty({ enum: ["success", "error"] })
  status: "success" | "error";

  @ApiPropertyOptional({ type: ErrorDetailDto, description: "Present when status is error." })
  error?: ErrorDetailDto;
}
