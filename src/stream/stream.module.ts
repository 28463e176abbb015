import { Module } from "@nestjs/common";

import { ChainModule } from "../chain/chain.module";
import { StreamController } from "./stream.controller";
import { StreamService } from "./stream.service";

@Module({
  imports: [ChainModule],
  controllers: [StreamController],
  providers: [StreamService],
})
export class StreamModule {}
