import { type DynamicModule, Module } from "@nestjs/common";

import { CallbacksController } from "./callbacks.controller";
import { CallbacksService } from "./callbacks.service";
import { CallbackDispatcher } from "./delivery/callback-dispatcher.service";
import { AuthModule } from "../auth/auth.module";

/** The outbox's delivery (worker role) and its log and redelivery (API). */
@Module({})
export class CallbacksModule {
  static forRole(runsWorker: boolean): DynamicModule {
    return {
      module: CallbacksModule,
      imports: [AuthModule],
      controllers: [CallbacksController],
      providers: [CallbacksService, ...(runsWorker ? [CallbackDispatcher] : [])],
    };
  }
}
