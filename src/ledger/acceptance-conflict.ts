/**
 * Another transaction created an id this one meant to create (same ticketId or eventId, committed
 * meanwhile). The whole acceptance is evaluated again and then sees it.
 */
export class AcceptanceConflict extends Error {
  constructor(what: string) {
    super(`concurrent acceptance created ${what}`);
    this.name = "AcceptanceConflict";
  }
}
