import type { Logger } from "@nestjs/common";
import type { Response } from "express";
import type Redis from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

/** A limit's place in Redis and its size: `points` requests per key per `durationSeconds`. */
export interface RateLimitSpec {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

/**
 * Requests per key per window, counted in Redis so that every instance shares the count. Sets
 * RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset on the answer; a refusal also Retry-After.
 * Counting is a safeguard, not a dependency: when Redis cannot count, the request goes through.
 */
export class SharedRateLimit {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly spec: RateLimitSpec,
    private readonly logger: Logger,
  ) {
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: spec.keyPrefix, points: spec.points, duration: spec.durationSeconds });
  }

  /** Counts one request of `key`; false (with Retry-After set) when the key is over its limit. */
  async allow(key: string, response: Response): Promise<boolean> {
    try {
      this.setHeaders(response, await this.limiter.consume(key));
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        this.logger.warn(`rate limit not counted: ${(rejection as Error).message}`);
        return true;
      }
      this.setHeaders(response, rejection);
      response.setHeader("Retry-After", Math.ceil(rejection.msBeforeNext / 1000));
      return false;
    }
  }

  /**
   * Counts `points` of `key` at once (the actions of a request); false (with RateLimit-* and
   * Retry-After set) when they do not fit in what is left of the window. A refused count is given
   * back, so a request too large for the rest of the window does not take what smaller ones could
   * still use. The headers of an allowed count are left as they are: they belong to the request budget.
   */
  async allowPoints(key: string, points: number, response: Response): Promise<boolean> {
    try {
      await this.limiter.consume(key, points);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        this.logger.warn(`rate limit not counted: ${(rejection as Error).message}`);
        return true;
      }
      await this.limiter.reward(key, points).catch((error: unknown) => this.logger.warn(`refused count not given back: ${(error as Error).message}`));
      this.setHeaders(response, rejection);
      response.setHeader("Retry-After", Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      return false;
    }
  }

  private setHeaders(response: Response, state: RateLimiterRes): void {
    response.setHeader("RateLimit-Limit", this.spec.points);
    response.setHeader("RateLimit-Remaining", Math.max(0, state.remainingPoints));
    response.setHeader("RateLimit-Reset", Math.ceil(state.msBeforeNext / 1000));
  }
}
