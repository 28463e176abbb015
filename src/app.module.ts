import { BullModule } from "@nestjs/bull";
import { type DynamicModule, Module } from "@nestjs/common";

import { AdminModule } from "./admin/admin.module";
import { ActionsModule } from "./ledger/actions.module";
import { AuthModule } from "./auth/auth.module";
import { CallbacksModule } from "./callbacks/callbacks.module";
import { ChainInfoModule } from "./chain/chain-info.module";
import { ChainModule } from "./chain/chain.module";
import { TransferFollowerModule } from "./chain/transfers/transfer-follower.module";
import { ChainWriterModule } from "./chain/writer/chain-writer.module";
import type { AppConfig } from "./config/app-config";
import { APP_CONFIG, ConfigModule } from "./config/config.module";
import { DatabaseModule } from "./database/database.module";
import { ENTITIES } from "./entities";
import { EventsModule } from "./events/events.module";
import { HealthModule } from "./health/health.module";
import { HolderProofsModule } from "./holder-proofs/holder-proofs.module";
import { type Clock, ClockModule } from "./common/clock";
import { HttpInputModule } from "./common/http/http-input.module";
import { IdempotencyModule } from "./idempotency/idempotency.module";
import { LoggingModule } from "./logging";
import { MetricsModule } from "./metrics/metrics.module";
import { RedisModule } from "./redis/redis.module";
import { RetentionModule } from "./retention/retention.module";
import { StreamModule } from "./stream/stream.module";
import { TicketsModule } from "./tickets/tickets.module";
import { TokensModule } from "./tokens/tokens.module";
import { UsageModule } from "./usage/usage.module";
import { VerifyModule } from "./verify/verify.module";

@Module({})
export class AppModule {
  /** `clock`: what the service judges long spans of time by (SYSTEM_CLOCK unless a test brings its own). */
  static forConfig(config: AppConfig, options: { clock?: Clock } = {}): DynamicModule {
    const servesApi = config.app.role !== "worker";
    const runsWorker = config.app.role !== "api";
    // The chain writer and the transfer follower run where the role asks for background work and a chain is configured.
    const writer = runsWorker && config.chain.rpcUrl !== null ? [ChainWriterModule, TransferFollowerModule] : [];
    // A worker serves the operations endpoints (health, metrics, queue dashboard) and no API.
    const api = servesApi
      ? [EventsModule, TicketsModule, StreamModule, ActionsModule, ChainInfoModule, VerifyModule, TokensModule, UsageModule, HolderProofsModule]
      : [];
    // Every API request: text checks of path and query parameters, Idempotency-Key on every POST.
    const requestChecks = servesApi ? [HttpInputModule, IdempotencyModule] : [];
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClockModule.forRoot(options.clock),
        LoggingModule.forConfig(config),
        DatabaseModule.forRoot(ENTITIES),
        RedisModule,
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (appConfig: AppConfig) => ({
            url: appConfig.redis.url,
            prefix: `${appConfig.redis.keyPrefix}:bull`,
            // Every queue's jobs: Redis holds the latest finished ones (for the dashboard), not every one ever run.
            defaultJobOptions: { removeOnComplete: appConfig.queue.keepFinishedJobs, removeOnFail: appConfig.queue.keepFinishedJobs },
          }),
        }),
        MetricsModule,
        AdminModule,
        AuthModule,
        ChainModule,
        ...writer,
        ...api,
        ...requestChecks,
        CallbacksModule.forRole({ servesApi, runsWorker }),
        ...(runsWorker ? [RetentionModule] : []),
        HealthModule.forRoot({ shutdownGraceMs: config.app.shutdownGraceMs, writesToChain: writer.length > 0 }),
      ],
    };
  }
}
