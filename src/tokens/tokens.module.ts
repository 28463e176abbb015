import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { LiveChangesModule } from "../ledger/live/live-changes.module";
import { RegistryExtent } from "./chain/registry-extent";
import { RegistryHead } from "./chain/registry-head";
import { RegistryReads } from "./chain/registry-reads";
import { CollectionService } from "./collection.service";
import { LedgerExtentStore } from "./ledger-extent.store";
import { MetadataRateLimit } from "./metadata-rate-limit";
import { TokenFactsService } from "./token-facts.service";
import { LedgerMetadataStore } from "./ledger-metadata.store";
import { TokensController } from "./tokens.controller";

/** The tokens' public metadata, `GET /tokens/{tokenId}` and `GET /tokens/collection`: part of the API role; read from the chain. */
@Module({
  imports: [ChainModule, LiveChangesModule],
  controllers: [TokensController],
  providers: [RegistryHead, RegistryReads, RegistryExtent, LedgerExtentStore, TokenFactsService, LedgerMetadataStore, CollectionService, MetadataRateLimit],
})
export class TokensModule {}
