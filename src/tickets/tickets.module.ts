import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { TicketsController } from "./tickets.controller";
import { TicketsService } from "./tickets.service";

@Module({
  imports: [ChainModule],
  controllers: [TicketsController],
  providers: [TicketsService],
})
export class TicketsModule {}
