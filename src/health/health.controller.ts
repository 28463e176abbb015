import { Controller, Get } from "@nestjs/common";
import { ApiOperation, ApiTags } from "@nestjs/swagger";
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from "@nestjs/terminus";
import type Redis from "ioredis";

import { Public } from "../auth/authenticated-organization";
import { InjectRedis } from "../redis/redis.module";

const CHECK_TIMEOUT_MS = 1_500;

@ApiTags("health")
@Controller("health")
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectRedis() private readonly redis: Redis,
  ) {}

  @Get()
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: "Whether the service and its PostgreSQL and Redis are up (no API key needed)" })
  check() {
    return this.health.check([
      () => this.database.pingCheck("database").withTimeout(CHECK_TIMEOUT_MS),
      () =>
        this.indicators
          .check("redis")
          .attempt(async () => {
            await this.redis.ping();
          })
          .withTimeout(CHECK_TIMEOUT_MS),
    ]);
  }
}
