import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager, IsNull } from "typeorm";

import { parseAllowedIps } from "./allowed-ips";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "./api-key-secret";
import { ApiKey } from "./entities/api-key.entity";
import { Organization } from "./entities/organization.entity";
import { DEFAULT_KEY_SCOPE, isKeyScope, KEY_SCOPES, type KeyScope } from "./key-scope";

export interface IssuedKey {
  /** The full key: shown once, never stored. */
  key: string;
  prefix: string;
}

/** What a key may do and where from; a key made without them may do everything, from anywhere. */
export interface KeyGrant {
  scope?: KeyScope;
  /** Addresses and CIDR ranges (parseAllowedIps); null or absent for anywhere. */
  allowedIps?: readonly string[] | null;
}

export class OrganizationsError extends Error {}

/**
 * Onboarding: organizations and their API keys. Used by the ops CLI and the playground seed, which
 * give a new organization its webhook secret through OrganizationOnboardingService (callbacks).
 */
@Injectable()
export class OrganizationsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new organization, inside the caller's transaction when given its manager. */
  async createOrganization(ticketeerId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<Organization> {
    if (await manager.getRepository(Organization).findOneBy({ ticketeerId })) throw new OrganizationsError(`organization ${ticketeerId} exists`);
    return manager.getRepository(Organization).save({ ticketeerId, name });
  }

  listOrganizations(): Promise<Organization[]> {
    return this.dataSource.getRepository(Organization).find({ order: { createdAt: "ASC" } });
  }

  async issueKey(ticketeerId: string, label = "", grant: KeyGrant = {}): Promise<IssuedKey> {
    const organization = await this.requireOrganization(ticketeerId);
    return this.insertKey(this.dataSource.manager, { organizationId: organization.id, label, ...checkedGrant(grant) });
  }

  async listKeys(ticketeerId: string): Promise<ApiKey[]> {
    const organization = await this.requireOrganization(ticketeerId);
    return this.dataSource.getRepository(ApiKey).find({ where: { organizationId: organization.id }, order: { createdAt: "ASC" } });
  }

  async revokeKey(prefix: string): Promise<void> {
    const result = await this.dataSource.getRepository(ApiKey).update({ prefix, revokedAt: IsNull() }, { revokedAt: new Date() });
    if (!result.affected) throw new OrganizationsError(`no live key with prefix ${prefix}`);
  }

  /** A new key for the same organization, label, scope and IP ranges; the old one stops working at once. */
  async rotateKey(prefix: string): Promise<IssuedKey> {
    return this.dataSource.transaction(async (manager) => {
      const old = await manager.getRepository(ApiKey).findOne({ where: { prefix, revokedAt: IsNull() }, relations: { organization: true } });
      if (!old?.organization) throw new OrganizationsError(`no live key with prefix ${prefix}`);
      await manager.getRepository(ApiKey).update({ id: old.id }, { revokedAt: new Date() });
      const { organizationId, label, scope, allowedIps } = old;
      return this.insertKey(manager, { organizationId, label, scope, allowedIps });
    });
  }

  /** Makes the playground key exist for an existing organization (development only). */
  async seedPlaygroundKey(ticketeerId: string, key: string): Promise<void> {
    const existing = await this.dataSource.getRepository(ApiKey).findOneBy({ prefix: apiKeyPrefix(key) });
    if (existing && existing.secretHash === hashApiKey(key) && existing.revokedAt === null) return;
    if (existing) throw new OrganizationsError("DEV_API_KEY shares its first 12 characters with another key; choose another");
    const organization = await this.requireOrganization(ticketeerId);
    await this.insertKey(this.dataSource.manager, { organizationId: organization.id, label: "playground", scope: DEFAULT_KEY_SCOPE, allowedIps: null }, key);
  }

  private async insertKey(
    manager: EntityManager,
    row: Pick<ApiKey, "organizationId" | "label" | "scope" | "allowedIps">,
    key = generateApiKey(),
  ): Promise<IssuedKey> {
    const prefix = apiKeyPrefix(key);
    await manager.getRepository(ApiKey).insert({ ...row, prefix, secretHash: hashApiKey(key) });
    return { key, prefix };
  }

  findOrganization(ticketeerId: string): Promise<Organization | null> {
    return this.dataSource.getRepository(Organization).findOneBy({ ticketeerId });
  }

  async requireOrganization(ticketeerId: string): Promise<Organization> {
    const organization = await this.findOrganization(ticketeerId);
    if (!organization) throw new OrganizationsError(`no organization ${ticketeerId}`);
    return organization;
  }
}

/** The grant as stored: a known scope, the ranges in the form PostgreSQL's cidr keeps them. */
function checkedGrant({ scope = DEFAULT_KEY_SCOPE, allowedIps = null }: KeyGrant): Pick<ApiKey, "scope" | "allowedIps"> {
  if (!isKeyScope(scope)) throw new OrganizationsError(`scope "${String(scope)}" is not one of ${[...KEY_SCOPES].reverse().join(", ")}`);
  if (allowedIps === null) return { scope, allowedIps: null };
  const parsed = parseAllowedIps(allowedIps.join(","));
  if (parsed.problem !== undefined) throw new OrganizationsError(`allowed IPs ${parsed.problem}`);
  return { scope, allowedIps: parsed.ranges };
}
