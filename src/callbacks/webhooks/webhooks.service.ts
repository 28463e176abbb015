import { Injectable } from "@nestjs/common";

import { type Clock, InjectClock } from "../../common/clock";
import { uuidv7 } from "../../common/uuid-v7";
import { allowPrivateCallbackHosts } from "../../common/validation/callback-target";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { WebhookSecretsService } from "../secrets/webhook-secrets.service";
import type { WebhookTestResultDto, WebhookViewDto } from "./dto/webhook-view.dto";
import type { WebhookEndpoint } from "./entities/webhook-endpoint.entity";
import { testBody } from "./notices";
import { MAX_WEBHOOKS_PER_ORGANIZATION } from "./webhook-actions";
import { WebhookEndpointsStore } from "./webhook-endpoints.store";
import { newWebhookOf, webhookChangesOf } from "./webhook-input";
import { WebhookTestSender } from "./webhook-test-sender";
import { WebhookErrors } from "./webhooks.errors";

/** An organization's webhook endpoints: managed through the API, and tested on request. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly store: WebhookEndpointsStore,
    private readonly secrets: WebhookSecretsService,
    private readonly sender: WebhookTestSender,
    @InjectClock() private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
  ) {
    // The url rule is the callbackUrl's: the hosts delivery may reach privately (CALLBACK_ALLOW_HOSTS) pass it.
    allowPrivateCallbackHosts(config.callbacks.allowHosts);
  }

  async list(organizationId: string): Promise<WebhookViewDto[]> {
    return (await this.store.listForOrganization(organizationId)).map(toView);
  }

  async find(organizationId: string, webhookId: string): Promise<WebhookViewDto> {
    return toView(await this.endpoint(organizationId, webhookId));
  }

  async create(organizationId: string, body: unknown): Promise<WebhookViewDto> {
    const created = await this.store.create(organizationId, newWebhookOf(body), MAX_WEBHOOKS_PER_ORGANIZATION);
    if (!created) throw WebhookErrors.limitReached();
    return toView(created);
  }

  async update(organizationId: string, webhookId: string, body: unknown): Promise<WebhookViewDto> {
    const changes = webhookChangesOf(body);
    const updated = await this.store.update(organizationId, webhookId, changes, this.clock.now());
    if (!updated) throw WebhookErrors.notFound(webhookId);
    return toView(updated);
  }

  async delete(organizationId: string, webhookId: string): Promise<void> {
    if (!(await this.store.delete(organizationId, webhookId))) throw WebhookErrors.notFound(webhookId);
  }

  /**
   * Sends a signed `test` callback to the endpoint now, enabled or not, and answers what it answered.
   * The test is logged as a callback of the endpoint (its one attempt, never retried); it changes
   * nothing of the endpoint's failure state.
   */
  async test(organizationId: string, webhookId: string): Promise<WebhookTestResultDto> {
    const endpoint = await this.endpoint(organizationId, webhookId);
    const callbackId = uuidv7();
    const sentAt = new Date();
    const payload = testBody(endpoint.id, sentAt);
    const secrets = (await this.secrets.activeSecrets([organizationId])).get(organizationId) ?? [];
    const answer = await this.sender.send(endpoint.url, callbackId, JSON.stringify(payload), secrets, sentAt);
    const delivered = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
    await this.store.recordTest({ callbackId, organizationId, webhookId: endpoint.id, url: endpoint.url, payload, startedAt: sentAt, ...answer, delivered });
    return { callbackId, delivered, statusCode: answer.statusCode, durationMs: answer.durationMs, error: answer.error, sentAt: sentAt.toISOString() };
  }

  private async endpoint(organizationId: string, webhookId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.findForOrganization(organizationId, webhookId);
    if (!endpoint) throw WebhookErrors.notFound(webhookId);
    return endpoint;
  }
}

function toView(endpoint: WebhookEndpoint): WebhookViewDto {
  return {
    webhookId: endpoint.id,
    url: endpoint.url,
    actions: endpoint.actions,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    failingSince: endpoint.failingSince?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}
