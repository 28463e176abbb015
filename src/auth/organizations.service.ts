import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, IsNull } from "typeorm";

import { apiKeyPrefix, generateApiKey, hashApiKey } from "./api-key-secret";
import { ApiKey } from "./entities/api-key.entity";
import { Organization } from "./entities/organization.entity";
import { WebhookSecretsService } from "./webhook-secrets.service";

export interface IssuedKey {
  /** The full key: shown once, never stored. */
  key: string;
  prefix: string;
}

export class OrganizationsError extends Error {}

/** Onboarding: organizations and their API keys. Used by the ops CLI and the playground seed. */
@Injectable()
export class OrganizationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly webhookSecrets: WebhookSecretsService,
  ) {}

  /** A new organization with its first webhook signing secret (returned once, like a key). */
  async createOrganization(ticketeerId: string, name: string, webhookSecret?: string): Promise<Organization & { webhookSecret: string }> {
    if (await this.findOrganization(ticketeerId)) throw new OrganizationsError(`organization ${ticketeerId} exists`);
    return this.dataSource.transaction(async (manager) => {
      const organization = await manager.getRepository(Organization).save({ ticketeerId, name });
      return { ...organization, webhookSecret: await this.webhookSecrets.create(organization.id, webhookSecret, manager) };
    });
  }

  /** A new signing secret; the old ones keep signing for `graceHours` so receivers can switch. */
  async rotateWebhookSecret(ticketeerId: string, graceHours: number): Promise<string> {
    const organization = await this.requireOrganization(ticketeerId);
    return this.webhookSecrets.rotate(organization.id, graceHours);
  }

  /** Encrypts the webhook secrets stored before WEBHOOK_SECRETS_KEY was configured; returns how many. */
  async encryptStoredWebhookSecrets(): Promise<number> {
    if (!this.webhookSecrets.encrypts) throw new OrganizationsError("WEBHOOK_SECRETS_KEY is not set: there is nothing to encrypt with");
    return this.webhookSecrets.encryptStored();
  }

  listOrganizations(): Promise<Organization[]> {
    return this.dataSource.getRepository(Organization).find({ order: { createdAt: "ASC" } });
  }

  async issueKey(ticketeerId: string, label = "", key = generateApiKey()): Promise<IssuedKey> {
    const organization = await this.requireOrganization(ticketeerId);
    const prefix = apiKeyPrefix(key);
    await this.dataSource.getRepository(ApiKey).insert({ organizationId: organization.id, prefix, secretHash: hashApiKey(key), label });
    return { key, prefix };
  }

  async listKeys(ticketeerId: string): Promise<ApiKey[]> {
    const organization = await this.requireOrganization(ticketeerId);
    return this.dataSource.getRepository(ApiKey).find({ where: { organizationId: organization.id }, order: { createdAt: "ASC" } });
  }

  async revokeKey(prefix: string): Promise<void> {
    const result = await this.dataSource.getRepository(ApiKey).update({ prefix, revokedAt: IsNull() }, { revokedAt: new Date() });
    if (!result.affected) throw new OrganizationsError(`no live key with prefix ${prefix}`);
  }

  /** A new key for the same organization and label; the old one stops working at once. */
  async rotateKey(prefix: string): Promise<IssuedKey> {
    return this.dataSource.transaction(async (manager) => {
      const old = await manager.getRepository(ApiKey).findOne({ where: { prefix, revokedAt: IsNull() }, relations: { organization: true } });
      if (!old?.organization) throw new OrganizationsError(`no live key with prefix ${prefix}`);
      await manager.getRepository(ApiKey).update({ id: old.id }, { revokedAt: new Date() });
      const key = generateApiKey();
      await manager.getRepository(ApiKey).insert({ organizationId: old.organizationId, prefix: apiKeyPrefix(key), secretHash: hashApiKey(key), label: old.label });
      return { key, prefix: apiKeyPrefix(key) };
    });
  }

  /** Makes the playground organization, key and (if given) webhook secret exist (development only). */
  async seedPlayground(ticketeerId: string, name: string, key: string, webhookSecret: string | null): Promise<void> {
    const organization = await this.findOrganization(ticketeerId);
    if (!organization) await this.createOrganization(ticketeerId, name, webhookSecret ?? undefined);
    else if (webhookSecret) await this.webhookSecrets.seed(organization.id, webhookSecret);
    const existing = await this.dataSource.getRepository(ApiKey).findOneBy({ prefix: apiKeyPrefix(key) });
    if (existing && existing.secretHash === hashApiKey(key) && existing.revokedAt === null) return;
    if (existing) throw new OrganizationsError("DEV_API_KEY shares its first 12 characters with another key; choose another");
    await this.issueKey(ticketeerId, "playground", key);
  }

  private findOrganization(ticketeerId: string): Promise<Organization | null> {
    return this.dataSource.getRepository(Organization).findOneBy({ ticketeerId });
  }

  private async requireOrganization(ticketeerId: string): Promise<Organization> {
    const organization = await this.findOrganization(ticketeerId);
    if (!organization) throw new OrganizationsError(`no organization ${ticketeerId}`);
    return organization;
  }
}
