import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { TicketVerificationService } from "./ticket-verification.service";
import { VerifyController } from "./verify.controller";
import { VerifyRateLimit } from "./verify-rate-limit";

/** The public ticket page, `GET /verify/{ticketId}`: part of the API role; it reads the chain only. */
@Module({
  imports: [ChainModule],
  controllers: [VerifyController],
  providers: [TicketVerificationService, VerifyRateLimit],
})
export class VerifyModule {}
