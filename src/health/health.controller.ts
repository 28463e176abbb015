import { Controller, Get } from "@nestjs/common";
import { ApiOperation, ApiTags } from "@nestjs/swagger";
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from "@nestjs/terminus";
import type Redis from "ioredis";

import { Public } from "../auth/authenticated-organization";
import { ChainClient } from "../chain/chain-client";
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
    private readonly chain: ChainClient,
  ) {}

  @Get()
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: "Whether the service and its PostgreSQL, Redis and chain are up (no API key needed)" })
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
      () => this.chainCheck(),
    ]);
  }

  /** Without a configured chain the service still accepts work; it waits in the ledger. */
  private chainCheck() {
    const session = this.indicators.check("chain");
    if (!this.chain.configured) return session.up({ configured: false });
    return session
      .attempt(async () => {
        const provider = await this.chain.connect();
        return { configured: true, chainId: Number(await this.chain.chainId()), blockNumber: await provider.getBlockNumber() };
      })
      .withTimeout(CHECK_TIMEOUT_MS);
  }
}
