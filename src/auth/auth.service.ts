import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { apiKeyMatches, apiKeyPrefix, API_KEY_PREFIX_LENGTH } from "./api-key-secret";
import type { AuthenticatedOrganization } from "./authenticated-organization";

interface KeyRow {
  secret_hash: string;
  organization_id: string;
  ticketeer_id: string;
  name: string;
}

@Injectable()
export class AuthService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The organization a live key belongs to, or null for a missing, unknown or revoked key. */
  async authenticate(key: string): Promise<AuthenticatedOrganization | null> {
    if (key.length <= API_KEY_PREFIX_LENGTH || key.length > 256) return null;
    const prefix = apiKeyPrefix(key);
    const rows = await this.dataSource.query<KeyRow[]>(
      `SELECT k.secret_hash, o.id AS organization_id, o.ticketeer_id, o.name
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
      [prefix],
    );
    const row = rows[0];
    if (!row || !apiKeyMatches(key, row.secret_hash)) return null;
    return { id: row.organization_id, ticketeerId: row.ticketeer_id, name: row.name, keyPrefix: prefix };
  }
}
