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
import { ReceiverHealthStore } from "./webhooks/receiver-health.store";
import { WebhookEndpointsStore } from "./webhooks/webhook-endpoints.store";
import { WebhookTestSender } from "./webhooks/webhook-test-sender";
import { WebhooksController } from "./webhooks/webhooks.controller";
import { WebhooksService } from "./webhooks/webhooks.service";
import { AuthModule } from "../auth/auth.module";

/**
 * The outbox's delivery and the receivers' health (worker role), its log and redelivery, the
 * organizations' webhook endpoints (API), and their webhook signing secrets.
 */
@Module({})
export class CallbacksModule {
  static forRole(role: { servesApi: boolean; runsWorker: boolean }): DynamicModule {
    const delivery = role.runsWorker ? [CallbackDispatcher, CallbackDelivery, DeliveryMetrics, ReceiverHealthStore] : [];
    const webhooks = role.servesApi ? [WebhooksService, WebhookEndpointsStore, WebhookTestSender] : [];
    return {
      module: CallbacksModule,
      imports: [AuthModule],
      controllers: role.servesApi ? [CallbacksController, WebhooksController] : [],
      providers: [CallbacksService, CallbacksStore, CallbackOutboxStore, WebhookSecretsService, OrganizationOnboardingService, ...delivery, ...webhooks],
    };
  }
}
