import { type DynamicModule, Module } from "@nestjs/common";

import { CallbacksController } from "./callbacks.controller";
import { CallbacksService } from "./callbacks.service";
import { CallbackDispatcher } from "./delivery/callback-dispatcher.service";
import { DeliveryMetrics } from "./delivery/delivery-metrics";
import { AuthModule } from "../auth/auth.module";

/** The outbox's delivery (worker role) and its log and redelivery (API). */
@Module({})
export class CallbacksModule {
  static forRole(role: { servesApi: boolean; runsWorker: boolean }): DynamicModule {
    return {
      module: CallbacksModule,
      imports: [AuthModule],
      controllers: role.servesApi ? [CallbacksController] : [],
      providers: [CallbacksService, ...(role.runsWorker ? [CallbackDispatcher, DeliveryMetrics] : [])],
    };
  }
}
