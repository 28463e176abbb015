import { type DynamicModule, Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain/chain.module";
import { ConnectionDrain } from "../common/http/connection-drain";
import { HealthController } from "./health.controller";

@Module({})
export class HealthModule {
  /**
   * On SIGTERM readiness answers 503 for `shutdownGraceMs` before the server stops taking requests,
   * so a load balancer has time to notice and send them elsewhere; then keep-alive connections are
   * drained (see ConnectionDrain).
   */
  static forRoot(shutdownGraceMs: number): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ gracefulShutdownTimeoutMs: shutdownGraceMs }), ChainModule],
      controllers: [HealthController],
      providers: [ConnectionDrain],
      exports: [ConnectionDrain],
    };
  }
}
