import { Module } from "@nestjs/common";

import { ChainModule } from "../chain.module";
import { SignerLocks } from "../writer/signer-locks";
import { TransferFollower } from "./transfer-follower";
import { TransfersStore } from "./transfers.store";

/** The worker's follower of the registry's Transfer logs after a claim. No controllers. */
@Module({
  imports: [ChainModule],
  providers: [TransferFollower, TransfersStore, SignerLocks],
  exports: [TransferFollower],
})
export class TransferFollowerModule {}
