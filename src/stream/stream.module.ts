import { Module } from "@nestjs/common";

import { LedgerModule } from "../ledger/ledger.module";
import { StreamController } from "./stream.controller";
import { StreamService } from "./stream.service";

@Module({
  imports: [LedgerModule],
  controllers: [StreamController],
  providers: [StreamService],
})
export class StreamModule {}
