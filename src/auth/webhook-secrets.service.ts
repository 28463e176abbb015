import { randomBytes } from "node:crypto";

import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../common/uuid-v7";

/** Whether `secret` is `whsec_` and well-formed base64 of at least 16 bytes: signing with it cannot fail. */
export function isWebhookSecret(secret: string): boolean {
  const encoded = secret.slice("whsec_".length);
  return secret.startsWith("whsec_") && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0 && Buffer.from(encoded, "base64").length >= 16;
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * Per-organization signing secrets. A rotation adds a new secret and keeps the old one signing for
 * a grace period, so receivers can switch without missing a callback.
 */
@Injectable()
export class WebhookSecretsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Adds a secret for the organization and returns it (shown once). */
  async create(organizationId: string, secret = generateWebhookSecret(), manager: EntityManager = this.dataSource.manager): Promise<string> {
    if (!isWebhookSecret(secret)) throw new Error("a webhook secret is whsec_ followed by base64 of at least 16 bytes");
    await manager.query(`INSERT INTO webhook_secrets (id, organization_id, secret) VALUES ($1, $2, $3)`, [uuidv7(), organizationId, secret]);
    return secret;
  }

  /** A new secret; the current ones keep signing for `graceHours`, then stop. */
  async rotate(organizationId: string, graceHours: number): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE webhook_secrets SET expires_at = now() + make_interval(hours => $2)
          WHERE organization_id = $1 AND (expires_at IS NULL OR expires_at > now() + make_interval(hours => $2))`,
        [organizationId, graceHours],
      );
      return this.create(organizationId, generateWebhookSecret(), manager);
    });
  }

  /** Every secret that signs now, newest first. */
  async activeSecrets(organizationIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = (await this.dataSource.query(
      `SELECT organization_id, secret FROM webhook_secrets
        WHERE organization_id = ANY($1::uuid[]) AND (expires_at IS NULL OR expires_at > now())
        ORDER BY created_at DESC`,
      [organizationIds],
    )) as { organization_id: string; secret: string }[];
    const secrets = new Map<string, string[]>();
    for (const row of rows) secrets.set(row.organization_id, [...(secrets.get(row.organization_id) ?? []), row.secret]);
    return secrets;
  }

  /** The playground's secret from DEV_WEBHOOK_SECRET, added once. */
  async seed(organizationId: string, secret: string): Promise<void> {
    const [existing] = (await this.dataSource.query(`SELECT 1 FROM webhook_secrets WHERE organization_id = $1 AND secret = $2`, [organizationId, secret])) as unknown[];
    if (!existing) await this.create(organizationId, secret);
  }
}
