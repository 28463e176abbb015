/**
 * Runs `send` for every caller, but never more than one at a time: callers that arrive while one runs
 * share the one run that starts after it has settled. Each caller's promise settles with a run that
 * started after the call, so whatever the caller did before calling (commit its actions) is visible to
 * what that run wakes (the writer reading the ledger). Under an on-sale's concurrent acceptances this
 * is one queue job per Redis round trip instead of one per request.
 */
export class CoalescedNotification {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly send: () => Promise<void>) {}

  notify(): Promise<void> {
    if (!this.running) return this.start();
    // A run started before this call may have read too early: this caller needs the next one.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<void> {
    const run = this.send().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}
