import { ClientIdField } from "../../common/validation/id-field";
import { CurrencyFieldDto } from "./event-fields.dto";

/** The data of an `updateEvent` stream action: the event and the fields to change. */
export class UpdateEventDto extends CurrencyFieldDto {
  @ClientIdField({ required: true, example: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10", description: "The event to change." })
  eventId: string;
}
