import { Injectable, Logger } from "@nestjs/common";
import type Redis from "ioredis";

import { SharedRateLimit } from "../common/http/shared-rate-limit";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";

/**
 * Metadata requests per client IP (an IPv6 client by its /64, see clientKeyOf) per window (METADATA_RATE_LIMIT_REQUESTS per
 * METADATA_RATE_LIMIT_WINDOW_SECONDS): wide enough for a marketplace's crawl, which mostly hits the
 * cache, narrow enough that nobody anonymous spends the node's quota on tokens that do not exist.
 */
@Injectable()
export class MetadataRateLimit extends SharedRateLimit {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const { points, durationSeconds } = config.tokenMetadata;
    super(redis, { keyPrefix: `${config.redis.keyPrefix}:metadata-rate`, points, durationSeconds }, new Logger(MetadataRateLimit.name));
  }
}
