import { Global, Inject, Logger, Module, type OnApplicationShutdown } from "@nestjs/common";
import Redis from "ioredis";

import type { AppConfig } from "../config/app-config";
import { APP_CONFIG } from "../config/config.module";

export const REDIS_CLIENT = Symbol("REDIS_CLIENT");

export const InjectRedis = (): ParameterDecorator => Inject(REDIS_CLIENT);

/** One Redis connection for the service's own keys (rate limits); Bull keeps its own. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      // A request must not hang on a Redis outage: commands fail fast instead of queueing.
      useFactory: (config: AppConfig) =>
        reportingOutages(new Redis(config.redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })),
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * One line when Redis becomes unreachable and one when it is back, instead of ioredis' "Unhandled
 * error event" on stderr at every reconnect attempt (an error event nobody listens to).
 */
function reportingOutages(redis: Redis): Redis {
  const logger = new Logger("Redis");
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`Redis unreachable (${error.message}); reconnecting`);
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.log("Redis reachable again");
  });
  return redis;
}
