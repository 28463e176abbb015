import { Module } from "@nestjs/common";

import { ChainModule } from "./chain.module";
import { ChainController } from "./chain.controller";

/** `GET /api/v1/chain`: part of the API role only; workers serve no API. */
@Module({
  imports: [ChainModule],
  controllers: [ChainController],
})
export class ChainInfoModule {}
