import { ApiProperty } from "@nestjs/swagger";
import { IsDefined } from "class-validator";

import { HTTPS_URL_PATTERN } from "../../common/http/openapi-schemas";
import { IsCallbackUrl, IsCurrencyCode } from "../../common/validation/field-decorators";
import { ClientIdField } from "../../common/validation/id-field";
import { EventFieldsDto } from "./event-fields.dto";

/** The fields a new event needs, however it is registered. */
export class NewEventBaseDto extends EventFieldsDto {
  @ClientIdField({ required: true, example: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10", description: "Chosen by the integrator; a UUID is recommended." })
  eventId: string;

  @ApiProperty({ minLength: 3, maxLength: 3, example: "EUR", description: "ISO 4217 code in capitals. On chain." })
  @IsDefined()
  @IsCurrencyCode()
  currency: string;

  @ApiProperty({
    pattern: HTTPS_URL_PATTERN,
    maxLength: 255,
    example: "https://integrator.example.com/callbacks",
    description: "https URL that receives the callbacks.",
  })
  @IsDefined()
  @IsCallbackUrl()
  callbackUrl: string;
}

/** The data of a `newEvent` stream action. */
export class NewEventDto extends NewEventBaseDto {
  @ClientIdField({ required: false, example: "ticketeer-42", description: "If given, must be the API key's organization." })
  ticketeerId?: string;
}

/** The body of POST /api/v1/events: a new event, with the organization's ticketeerId. */
export class CreateEventDto extends NewEventBaseDto {
  @ClientIdField({ required: true, example: "ticketeer-42", description: "Issued at onboarding; must be the API key's organization." })
  ticketeerId: string;
}
