import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain/chain.module";
import { HealthController } from "./health.controller";

@Module({
  imports: [TerminusModule, ChainModule],
  controllers: [HealthController],
})
export class HealthModule {}
