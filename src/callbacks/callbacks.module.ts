import { type DynamicModule, Module } from "@nestjs/common";

import { CallbacksController } from "./callbacks.controller";
import { CallbacksService } from "./callbacks.service";
import { CallbackDispatcher } from "./delivery/callback-dispatcher.service";
import { DeliveryMetrics } from "./delivery/delivery-metrics";
import { OrganizationOnboardingService } from "./secrets/organization-onboarding.service";
import { WebhookSecretsService } from "./secrets/webhook-secrets.service";
import { AuthModule } from "../auth/auth.module";

/** The outbox's delivery (worker role), its log and redelivery (API), and the organizations' webhook signing secrets. */
@Module({})
export class CallbacksModule {
  static forRole(role: { servesApi: boolean; runsWorker: boolean }): DynamicModule {
    return {
      module: CallbacksModule,
      imports: [AuthModule],
      controllers: role.servesApi ? [CallbacksController] : [],
      providers: [CallbacksService, WebhookSecretsService, OrganizationOnboardingService, ...(role.runsWorker ? [CallbackDispatcher, DeliveryMetrics] : [])],
    };
  }
}
