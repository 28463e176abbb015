import { ApiProperty } from "@nestjs/swagger";
import { IsDefined, IsNotEmpty, IsString } from "class-validator";

import { MaxText } from "../../common/validation/field-decorators";
import { CurrencyFieldDto } from "./event-fields.dto";

/** The data of an `updateEvent` stream action: the event and the fields to change. */
export class UpdateEventDto extends CurrencyFieldDto {
  @ApiProperty({ maxLength: 255, example: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10" })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxText()
  eventId: string;
}
