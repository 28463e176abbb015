import { ApiProperty } from "@nestjs/swagger";

import { ActionViewDto } from "./action-view.dto";

export class ActionStatusDto extends ActionViewDto {
  @ApiProperty()
  eventId: string;

  @ApiProperty({ type: String, nullable: true, description: "Null for event actions." })
  ticketId: string | null;
}
