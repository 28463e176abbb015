import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { EventActivityService } from "./event-activity.service";
import { TicketVerificationService } from "./ticket-verification.service";
import { VerifyController } from "./verify.controller";
import { VerifyRateLimit } from "./verify-rate-limit";

/** The public ticket, token and event pages, `GET /verify/…`: part of the API role; it reads the chain only. */
@Module({
  imports: [ChainModule],
  controllers: [VerifyController],
  providers: [TicketVerificationService, EventActivityService, VerifyRateLimit],
})
export class VerifyModule {}
