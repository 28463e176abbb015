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

  private setHeaders(response: Response, state: RateLimiterRes): void {
    response.setHeader("RateLimit-Limit", this.spec.points);
    response.setHeader("RateLimit-Remaining", Math.max(0, state.remainingPoints));
    response.setHeader("RateLimit-Reset", Math.ceil(state.msBeforeNext / 1000));
  }
}
