/** A request the operator made that cannot be done (unknown organization or prefix, duplicate): one line, no stack. */
export class RefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedError";
  }
}

/** A mistake on the command line: reported with the usage that fits it, never with a stack trace. */
export class UsageError extends RefusedError {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}
