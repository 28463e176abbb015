import { errorDetail, type ErrorDetail } from "../common/errors/error-detail";

export const EventErrors = {
  exists: (eventId: string): ErrorDetail => errorDetail("event_exists", `Event ${eventId} is already registered.`, "eventId"),
  notFound: (eventId: string): ErrorDetail => errorDetail("event_not_found", `Event ${eventId} is not registered.`, "eventId"),
  cancelled: (eventId: string): ErrorDetail => errorDetail("event_cancelled", `Event ${eventId} is cancelled.`, "eventId"),
  ticketeerMismatch: (ticketeerId: string): ErrorDetail =>
    errorDetail("ticketeer_mismatch", `ticketeerId ${ticketeerId} is not the organization of this API key.`, "ticketeerId"),
  endBeforeStart: (): ErrorDetail => errorDetail("invalid_field", "endTime must not be before startTime.", "endTime"),
  nothingToUpdate: (): ErrorDetail => errorDetail("invalid_field", "updateEvent needs at least one field to change besides eventId.", "eventId"),
};
