/**
 * A pass run again and again, `intervalMs()` after the end of the one before, until stopped: the
 * worker's watchers of the chain. Passes never overlap (a pass asked for while one runs is skipped);
 * a failed pass goes to `onError` and the next one runs as planned.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly intervalMs: () => number,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** No pass starts after this; one running goes on to its end. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** One pass now, unless one is running; exposed for tests. */
  async runOnce(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.pass();
    } finally {
      this.running = false;
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.runOnce()
        .catch((error: unknown) => this.onError(error as Error))
        .finally(() => this.schedule(this.intervalMs()));
    }, delay);
  }
}
