import { Injectable, Logger } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import type { Request } from "express";
import { DataSource } from "typeorm";

import { FORBIDDEN_BODY, type ForbiddenBody, keyRefusedBody } from "../common/http/api-exception.filter";
import { clientAddressOfRequest } from "../common/http/client-key";
import { ipAllowed } from "./allowed-ips";
import { apiKeyMatches, apiKeyPrefix, API_KEY_PREFIX_LENGTH } from "./api-key-secret";
import { API_KEY_HEADER, type AuthenticatedOrganization } from "./authenticated-organization";
import type { KeyScope } from "./key-scope";

/**
 * How stale a key's `last_used_at` may be. Recording every use would make every request a write to
 * one hot row per key (a door scanner's key answers thousands of scans an hour, from several API
 * instances): a lock, a WAL record and a dead tuple each time, for a date operators read to the
 * day. So a use is written only when the stored one is older than this, at most once a minute per
 * key across all instances (the UPDATE re-checks it), and the read that authenticates the key
 * tells whether it is due, so the other requests cost nothing more.
 */
export const LAST_USED_RESOLUTION_SECONDS = 60;

interface KeyRow {
  key_id: string;
  prefix: string;
  secret_hash: string;
  scope: KeyScope;
  allowed_ips: string[] | null;
  use_due: boolean;
  organization_id: string;
  ticketeer_id: string;
  name: string;
}

/** A request's key checked: its organization, or the exact 403 body it gets. */
export type Admission = { admitted: AuthenticatedOrganization; refused?: never } | { admitted?: never; refused: ForbiddenBody };

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);
  /** Keys whose use is being written now: a burst of one key's requests on this instance writes once. */
  private readonly recording = new Set<string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The organization a live key belongs to, or null for a missing, unknown or revoked key. */
  async authenticate(key: string): Promise<AuthenticatedOrganization | null> {
    const row = await this.liveKey(key);
    return row && organizationOf(row);
  }

  /**
   * The request's X-Api-Key checked: a live key used from an address it may be used from (the client
   * address as TRUST_PROXY lets Express read it) admits the request, and its use is recorded.
   * Anything else gets its 403: exactly {"message":"Forbidden"} for a missing, unknown or revoked key,
   * with `code: "key_ip"` for a live key used from elsewhere.
   */
  async admit(request: Request): Promise<Admission> {
    const presented = request.headers[API_KEY_HEADER];
    const row = typeof presented === "string" ? await this.liveKey(presented) : null;
    if (!row) return { refused: FORBIDDEN_BODY };
    if (!ipAllowed(row.allowed_ips, clientAddressOfRequest(request))) return { refused: keyRefusedBody("key_ip") };
    if (row.use_due) await this.recordUse(row.key_id);
    return { admitted: organizationOf(row) };
  }

  private async liveKey(key: string): Promise<KeyRow | null> {
    if (key.length <= API_KEY_PREFIX_LENGTH || key.length > 256) return null;
    const rows = await this.dataSource.query<KeyRow[]>(
      `SELECT k.id AS key_id, k.prefix, k.secret_hash, k.scope, k.allowed_ips::text[] AS allowed_ips,
              (k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => $2)) AS use_due,
              o.id AS organization_id, o.ticketeer_id, o.name
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
      [apiKeyPrefix(key), LAST_USED_RESOLUTION_SECONDS],
    );
    const row = rows[0];
    return row && apiKeyMatches(key, row.secret_hash) ? row : null;
  }

  /** A failure here never fails the request: the date is a convenience for operators, the request the service's job. */
  private async recordUse(keyId: string): Promise<void> {
    if (this.recording.has(keyId)) return;
    this.recording.add(keyId);
    try {
      await this.dataSource.query(
        `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
        [keyId, LAST_USED_RESOLUTION_SECONDS],
      );
    } catch (error) {
      this.logger.warn(`last use of an API key not recorded: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.recording.delete(keyId);
    }
  }
}

function organizationOf(row: KeyRow): AuthenticatedOrganization {
  return { id: row.organization_id, ticketeerId: row.ticketeer_id, name: row.name, keyPrefix: row.prefix, keyScope: row.scope };
}
