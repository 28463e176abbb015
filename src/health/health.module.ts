import { type DynamicModule, Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain/chain.module";
import { ChainWriterModule } from "../chain/writer/chain-writer.module";
import { ConnectionDrain } from "../common/http/connection-drain";
import { HealthController } from "./health.controller";

@Module({})
export class HealthModule {
  /**
   * On SIGTERM readiness answers 503 for `shutdownGraceMs` before the server stops taking requests,
   * so a load balancer has time to notice and send them elsewhere; then keep-alive connections are
   * drained (see ConnectionDrain).
   */
  static forRoot(options: { shutdownGraceMs: number; writesToChain: boolean }): DynamicModule {
    // Where the chain writer runs, readiness also reports its signers' funds.
    const writer = options.writesToChain ? [ChainWriterModule] : [];
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ gracefulShutdownTimeoutMs: options.shutdownGraceMs }), ChainModule, ...writer],
      controllers: [HealthController],
      providers: [ConnectionDrain],
      exports: [ConnectionDrain],
    };
  }
}
