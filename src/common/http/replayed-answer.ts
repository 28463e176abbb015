/** The stored answer to an Idempotency-Key's first request, sent again as it was (status and body). */
export class ReplayedAnswer extends Error {
  constructor(
    readonly status: number,
    /** The JSON body exactly as first sent. */
    readonly body: string,
  ) {
    super("replayed answer");
    this.name = "ReplayedAnswer";
  }
}
