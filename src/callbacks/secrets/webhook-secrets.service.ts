import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { SecretBox } from "./secret-box";
import { generateWebhookSecret, isWebhookSecret } from "./webhook-secret";

/**
 * Per-organization signing secrets, stored encrypted under WEBHOOK_SECRETS_KEY (see SecretBox). A
 * rotation adds a new secret and keeps the old one signing for a grace period, so receivers can
 * switch without missing a callback.
 */
@Injectable()
export class WebhookSecretsService {
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() config: AppConfig,
  ) {
    this.box = new SecretBox(config.callbacks.secretsKey === null ? null : Buffer.from(config.callbacks.secretsKey, "base64"));
  }

  /** Whether secrets are stored encrypted (WEBHOOK_SECRETS_KEY is set). */
  get encrypts(): boolean {
    return this.box.encrypts;
  }

  /** Adds a secret for the organization and returns it (shown once). */
  async create(organizationId: string, secret = generateWebhookSecret(), manager: EntityManager = this.dataSource.manager): Promise<string> {
    if (!isWebhookSecret(secret)) throw new Error("a webhook secret is whsec_ followed by base64 of at least 16 bytes");
    await manager.query(`INSERT INTO webhook_secrets (id, organization_id, secret) VALUES ($1, $2, $3)`, [
      uuidv7(),
      organizationId,
      this.box.seal(secret, organizationId),
    ]);
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
    const rows = await this.dataSource.query<{ organization_id: string; secret: string }[]>(
      `SELECT organization_id, secret FROM webhook_secrets
        WHERE organization_id = ANY($1::uuid[]) AND (expires_at IS NULL OR expires_at > now())
        ORDER BY created_at DESC`,
      [organizationIds],
    );
    const secrets = new Map<string, string[]>();
    for (const row of rows) secrets.set(row.organization_id, [...(secrets.get(row.organization_id) ?? []), this.box.open(row.secret, row.organization_id)]);
    return secrets;
  }

  /** The playground's secret from DEV_WEBHOOK_SECRET, added once. */
  async seed(organizationId: string, secret: string): Promise<void> {
    const stored = await this.dataSource.query<{ secret: string }[]>(`SELECT secret FROM webhook_secrets WHERE organization_id = $1`, [organizationId]);
    if (!stored.some((row) => this.box.open(row.secret, organizationId) === secret)) await this.create(organizationId, secret);
  }

  /** Encrypts the secrets stored readable (before a key was configured); returns how many. */
  async encryptStored(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const plain = await manager.query<
        {
          id: string;
          organization_id: string;
          secret: string;
        }[]
      >(`SELECT id, organization_id, secret FROM webhook_secrets WHERE secret NOT LIKE 'enc:%' FOR UPDATE`);
      for (const row of plain) {
        await manager.query(`UPDATE webhook_secrets SET secret = $2 WHERE id = $1`, [row.id, this.box.seal(row.secret, row.organization_id)]);
      }
      return plain.length;
    });
  }
}
