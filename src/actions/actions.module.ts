import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { ActionsController } from "./actions.controller";
import { ActionsService } from "./actions.service";

@Module({
  imports: [ChainModule],
  controllers: [ActionsController],
  providers: [ActionsService],
})
export class ActionsModule {}
