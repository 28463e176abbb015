import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { HolderProofsController } from "./holder-proofs.controller";
import { HolderProofsService } from "./holder-proofs.service";
import { HolderProofsStore } from "./holder-proofs.store";
import { HolderReads } from "./holder-reads";

/** `POST /api/v1/holder-proofs/challenge` and `/verify`: part of the API role; reads the chain, writes only its challenges. */
@Module({
  imports: [ChainModule],
  controllers: [HolderProofsController],
  providers: [HolderProofsService, HolderProofsStore, HolderReads],
})
export class HolderProofsModule {}
