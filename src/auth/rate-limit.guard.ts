import { type CanActivate, type ExecutionContext, Injectable, Logger } from "@nestjs/common";
import type { Response } from "express";
import type Redis from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";
import type { AuthenticatedRequest } from "./authenticated-organization";

/**
 * Requests per API key per window, counted in Redis so that every instance shares the count.
 * Answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; a 429 also Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);
  private readonly limiter: RateLimiterRedis;

  constructor(
    @InjectRedis() redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.redis.keyPrefix}:rate`,
      points: config.rateLimit.points,
      duration: config.rateLimit.durationSeconds,
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!request.organization) return true;
    const response = context.switchToHttp().getResponse<Response>();
    try {
      this.setHeaders(response, await this.limiter.consume(request.organization.keyPrefix));
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        // Counting is a safeguard, not a dependency: a Redis outage must not stop accepted traffic.
        this.logger.warn(`rate limit not counted: ${(rejection as Error).message}`);
        return true;
      }
      this.setHeaders(response, rejection);
      response.setHeader("Retry-After", Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError(
        429,
        errorDetail("rate_limited", `At most ${this.config.rateLimit.points} requests per ${this.config.rateLimit.durationSeconds} s per API key.`),
      );
    }
  }

  private setHeaders(response: Response, state: RateLimiterRes): void {
    response.setHeader("RateLimit-Limit", this.config.rateLimit.points);
    response.setHeader("RateLimit-Remaining", Math.max(0, state.remainingPoints));
    response.setHeader("RateLimit-Reset", Math.ceil(state.msBeforeNext / 1000));
  }
}
