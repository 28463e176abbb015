import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { Organization } from "../../auth/entities/organization.entity";
import { OrganizationsError, OrganizationsService } from "../../auth/organizations.service";
import { WebhookSecretsService } from "./webhook-secrets.service";

/**
 * Onboarding's webhook side: an organization is created together with its first signing secret, and
 * its secrets are rotated and encrypted here. It lives with the callbacks, which sign with the
 * secrets, so that auth, which keeps organizations and API keys, depends on nothing of callbacks.
 */
@Injectable()
export class OrganizationOnboardingService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly organizations: OrganizationsService,
    private readonly webhookSecrets: WebhookSecretsService,
  ) {}

  /** A new organization with its first webhook signing secret (returned once, like a key). */
  async createOrganization(ticketeerId: string, name: string, webhookSecret?: string): Promise<Organization & { webhookSecret: string }> {
    return this.dataSource.transaction(async (manager) => {
      const organization = await this.organizations.createOrganization(ticketeerId, name, manager);
      return { ...organization, webhookSecret: await this.webhookSecrets.create(organization.id, webhookSecret, manager) };
    });
  }

  /** A new signing secret; the old ones keep signing for `graceHours` so receivers can switch. */
  async rotateWebhookSecret(ticketeerId: string, graceHours: number): Promise<string> {
    const organization = await this.organizations.requireOrganization(ticketeerId);
    return this.webhookSecrets.rotate(organization.id, graceHours);
  }

  /** Encrypts the webhook secrets stored before WEBHOOK_SECRETS_KEY was configured; returns how many. */
  async encryptStoredWebhookSecrets(): Promise<number> {
    if (!this.webhookSecrets.encrypts) throw new OrganizationsError("WEBHOOK_SECRETS_KEY is not set: there is nothing to encrypt with");
    return this.webhookSecrets.encryptStored();
  }

  /** Makes the playground organization, key and (if given) webhook secret exist (development only). */
  async seedPlayground(ticketeerId: string, name: string, key: string, webhookSecret: string | null): Promise<void> {
    const organization = await this.organizations.findOrganization(ticketeerId);
    if (!organization) await this.createOrganization(ticketeerId, name, webhookSecret ?? undefined);
    else if (webhookSecret) await this.webhookSecrets.seed(organization.id, webhookSecret);
    await this.organizations.seedPlaygroundKey(ticketeerId, key);
  }
}
