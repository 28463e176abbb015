import { Module } from "@nestjs/common";

import { allowPrivateCallbackHosts } from "../common/validation/callback-target";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { LedgerModule } from "../ledger/ledger.module";
import { EventsController } from "./events.controller";
import { EventsService } from "./events.service";

@Module({
  imports: [LedgerModule],
  controllers: [EventsController],
  providers: [EventsService],
})
export class EventsModule {
  constructor(@InjectConfig() config: AppConfig) {
    // The callbackUrl rule lets the hosts delivery may reach privately (CALLBACK_ALLOW_HOSTS) through.
    allowPrivateCallbackHosts(config.callbacks.allowHosts);
  }
}
