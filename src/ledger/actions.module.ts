import { Module } from "@nestjs/common";

import { ActionsController } from "./actions.controller";
import { ActionsService } from "./actions.service";
import { LedgerModule } from "./ledger.module";

/** `GET /api/v1/actions/{promise}`: part of the API role only. */
@Module({
  imports: [LedgerModule],
  controllers: [ActionsController],
  providers: [ActionsService],
})
export class ActionsModule {}
