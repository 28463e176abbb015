import { Injectable, Logger } from "@nestjs/common";
import type { Response } from "express";
import type Redis from "ioredis";

import { errorDetail, type ErrorDetail } from "../common/errors/error-detail";
import { SharedRateLimit } from "../common/http/shared-rate-limit";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";
import type { AuthenticatedRequest } from "./authenticated-organization";

/** Marks a request whose key has been counted already, so that it is counted once. */
const COUNTED = Symbol("rateLimitCounted");

/**
 * Requests per API key per window (see SharedRateLimit). Used before the body is read
 * (app.setup.ts), and by RateLimitGuard for any request not counted then.
 */
@Injectable()
export class RateLimiter {
  private readonly limit: SharedRateLimit;

  constructor(
    @InjectRedis() redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const { points, durationSeconds } = config.rateLimit;
    this.limit = new SharedRateLimit(redis, { keyPrefix: `${config.redis.keyPrefix}:rate`, points, durationSeconds }, new Logger(RateLimiter.name));
  }

  /** Counts the request against its key once; the 429 error's detail when the key is over its limit, else null. */
  async consume(request: AuthenticatedRequest, response: Response): Promise<ErrorDetail | null> {
    const counted = request as AuthenticatedRequest & { [COUNTED]?: boolean };
    if (!request.organization || counted[COUNTED]) return null;
    counted[COUNTED] = true;
    if (await this.limit.allow(request.organization.keyPrefix, response)) return null;
    const { points, durationSeconds } = this.config.rateLimit;
    return errorDetail("rate_limited", `At most ${points} requests per ${durationSeconds} s per API key.`);
  }
}
