import { type DynamicModule, Module } from "@nestjs/common";

import { CallbackOutboxStore } from "./callback-outbox.store";
import { CallbacksController } from "./callbacks.controller";
import { CallbacksStore } from "./callbacks.store";
import { CallbacksService } from "./callbacks.service";
import { CallbackDelivery } from "./delivery/callback-delivery";
import { CallbackDispatcher } from "./delivery/callback-dispatcher";
import { DeliveryMetrics } from "./delivery/delivery-metrics";
import { OrganizationOnboardingService } from "./secrets/organization-onboarding.service";
import { WebhookSecretsService } from "./secrets/webhook-secrets.service";
import { AuthModule } from "../auth/auth.module";

/** The outbox's delivery (worker role), its log and redelivery (API), and the organizations' webhook signing secrets. */
@Module({})
export class CallbacksModule {
  static forRole(role: { servesApi: boolean; runsWorker: boolean }): DynamicModule {
    const delivery = role.runsWorker ? [CallbackDispatcher, CallbackDelivery, DeliveryMetrics] : [];
    return {
      module: CallbacksModule,
      imports: [AuthModule],
      controllers: role.servesApi ? [CallbacksController] : [],
      providers: [CallbacksService, CallbacksStore, CallbackOutboxStore, WebhookSecretsService, OrganizationOnboardingService, ...delivery],
    };
  }
}
