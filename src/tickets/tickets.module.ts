import { Module } from "@nestjs/common";

import { LedgerModule } from "../ledger/ledger.module";
import { TicketsController } from "./tickets.controller";
import { TicketsService } from "./tickets.service";

@Module({
  imports: [LedgerModule],
  controllers: [TicketsController],
  providers: [TicketsService],
})
export class TicketsModule {}
