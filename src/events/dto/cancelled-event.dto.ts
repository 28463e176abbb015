import { ClientIdField } from "../../common/validation/id-field";

/** The data of a `cancelledEvent` stream action, and of POST /api/v1/events/{eventId}/cancel (the eventId of its path). */
export class CancelledEventDto {
  @ClientIdField({ required: true, example: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10", description: "The event to cancel, with every one of its tickets." })
  eventId: string;
}
