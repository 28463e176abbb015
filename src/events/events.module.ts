import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { EventsController } from "./events.controller";
import { EventsService } from "./events.service";

@Module({
  imports: [ChainModule],
  controllers: [EventsController],
  providers: [EventsService],
})
export class EventsModule {}
