import { Injectable, Logger } from "@nestjs/common";
import type { Response } from "express";
import type Redis from "ioredis";

import { SharedRateLimit } from "../common/http/shared-rate-limit";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";

/**
 * Requests to the public ticket page per client IP (an IPv6 client by its /64) per window (VERIFY_RATE_LIMIT_REQUESTS per
 * VERIFY_RATE_LIMIT_WINDOW_SECONDS; see SharedRateLimit). Each page
 * costs several JSON-RPC calls, so anonymous readers must not be able to spend the node's quota.
 */
@Injectable()
export class VerifyRateLimit {
  private readonly limit: SharedRateLimit;

  constructor(
    @InjectRedis() redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const { points, durationSeconds } = config.verifyPage;
    this.limit = new SharedRateLimit(redis, { keyPrefix: `${config.redis.keyPrefix}:verify-rate`, points, durationSeconds }, new Logger(VerifyRateLimit.name));
  }

  /** Counts one request of `clientKey` (clientKeyOf: an IPv4 address, or an IPv6 /64); false (with Retry-After set) when it is over the limit. */
  allow(clientKey: string, response: Response): Promise<boolean> {
    return this.limit.allow(clientKey, response);
  }

  get describe(): string {
    return `${this.config.verifyPage.points} pages per ${this.config.verifyPage.durationSeconds} s`;
  }
}
