import { Logger } from "@nestjs/common";

/**
 * A read made at scrape time, shared: while one is running every caller gets its result, so the
 * metrics of one scrape cost one read. It answers null when the read fails or outlasts `timeoutMs`
 * (the metrics it feeds are then left out rather than stale); a warning is logged when reads start
 * failing and a note when they work again, not at every scrape.
 */
export class ScrapeRead<T> {
  private readonly logger: Logger;
  private inFlight: Promise<T | null> | null = null;
  private failing = false;

  constructor(
    private readonly what: string,
    private readonly read: () => Promise<T>,
    private readonly timeoutMs: number,
  ) {
    this.logger = new Logger(`Metrics:${what}`);
  }

  get(): Promise<T | null> {
    this.inFlight ??= this.attempt().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async attempt(): Promise<T | null> {
    try {
      const value = await withTimeout(this.read(), this.timeoutMs);
      if (this.failing) this.logger.log(`reading ${this.what} for the metrics works again`);
      this.failing = false;
      return value;
    } catch (error) {
      if (!this.failing) this.logger.warn(`reading ${this.what} for the metrics failed; left out until it works: ${(error as Error).message}`);
      this.failing = true;
      return null;
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
