import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { LedgerMetadataStore } from "../tokens/ledger-metadata.store";
import { EventActivityService } from "./event-activity.service";
import { MetadataCheckService } from "./metadata-check.service";
import { MetadataWritesStore } from "./metadata-writes.store";
import { TicketVerificationService } from "./ticket-verification.service";
import { VerifyController } from "./verify.controller";
import { VerifyRateLimit } from "./verify-rate-limit";

/**
 * The public ticket, token and event pages, `GET /verify/…`: part of the API role. They read the chain,
 * except to compare a token's served metadata with the chain's record of it: the ledger gives that
 * metadata and names the transactions whose receipts hold the record.
 */
@Module({
  imports: [ChainModule],
  controllers: [VerifyController],
  providers: [TicketVerificationService, EventActivityService, VerifyRateLimit, LedgerMetadataStore, MetadataWritesStore, MetadataCheckService],
})
export class VerifyModule {}
