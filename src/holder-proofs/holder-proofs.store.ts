import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { ProofSubject } from "./typed-data";

/** A challenge as issued: what a proof's message must state. */
export interface IssuedChallenge {
  nonce: string;
  organizationId: string;
  chainId: bigint;
  registryAddress: string;
  subject: ProofSubject;
  /** The ledger's event of the token, or the event proved. */
  eventRef: string;
  expiry: bigint;
}

export interface StoredChallenge extends IssuedChallenge {
  /** The integrator's eventId of eventRef. */
  eventId: string;
  used: boolean;
}

/** A challenge's subject as the organization's ledger knows it. */
export interface LedgerSubject {
  subject: ProofSubject;
  eventRef: string;
  eventId: string;
}

/** Expired rows deleted with each new challenge: enough to keep up with any rate of challenges, bounded per request. */
const CLEANUP_BATCH = 100;
/** The most tokens of one event looked up per holder: a wallet holding more still proves with any of these. */
export const MAX_EVENT_CANDIDATES = 50;

const UINT64_BITS = 64n;

/** The SQL of holder proofs: their challenges, and the ledger's tokens and events they name. */
@Injectable()
export class HolderProofsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records a challenge, and deletes some of those expired before `now` (unix seconds) on the way. */
  async issue(challenge: IssuedChallenge, now: bigint): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `DELETE FROM holder_proof_challenges WHERE nonce IN (SELECT nonce FROM holder_proof_challenges WHERE expiry < $1 ORDER BY expiry LIMIT ${CLEANUP_BATCH})`,
        [now.toString()],
      );
      const { subject } = challenge;
      await manager.query(
        `INSERT INTO holder_proof_challenges (nonce, organization_id, chain_id, registry_address, token_id, event_ref, event_index, expiry)
         VALUES (decode($1, 'hex'), $2, $3, $4, $5, $6, $7, $8)`,
        [
          challenge.nonce.slice(2),
          challenge.organizationId,
          challenge.chainId.toString(),
          challenge.registryAddress,
          subject.kind === "token" ? subject.tokenId.toString() : null,
          challenge.eventRef,
          subject.kind === "event" ? subject.eventIndex.toString() : null,
          challenge.expiry.toString(),
        ],
      );
    });
  }

  /** The organization's challenge of this nonce; null when it issued none (or it was cleaned up). */
  async find(organizationId: string, nonce: string): Promise<StoredChallenge | null> {
    const [row] = await this.dataSource.query<ChallengeRow[]>(
      `SELECT c.organization_id, c.chain_id::text, c.registry_address, c.token_id::text, c.event_ref, e.event_id, c.event_index::text, c.expiry::text,
              c.used_at IS NOT NULL AS used
         FROM holder_proof_challenges c JOIN events e ON e.id = c.event_ref
        WHERE c.nonce = decode($1, 'hex') AND c.organization_id = $2`,
      [nonce.slice(2), organizationId],
    );
    if (!row) return null;
    return {
      nonce,
      organizationId: row.organization_id,
      chainId: BigInt(row.chain_id),
      registryAddress: row.registry_address,
      subject: row.token_id !== null ? { kind: "token", tokenId: BigInt(row.token_id) } : { kind: "event", eventIndex: BigInt(row.event_index!) },
      eventRef: row.event_ref,
      eventId: row.event_id,
      expiry: BigInt(row.expiry),
      used: row.used,
    };
  }

  /** Marks the challenge used by `holder`; false when another proof used it first. One UPDATE: two proofs racing, one wins. */
  async consume(organizationId: string, nonce: string, holder: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE holder_proof_challenges SET used_at = now(), holder = $3 WHERE nonce = decode($1, 'hex') AND organization_id = $2 AND used_at IS NULL`,
      [nonce.slice(2), organizationId, holder],
    );
    return affected === 1;
  }

  /** The organization's ticket of this token (not released), with its event. */
  async ledgerToken(organizationId: string, tokenId: bigint): Promise<LedgerSubject | null> {
    const [row] = await this.dataSource.query<{ event_ref: string; event_id: string }[]>(
      `SELECT t.event_ref, e.event_id FROM tickets t JOIN events e ON e.id = t.event_ref
        WHERE t.organization_id = $1 AND t.token_id = $2 AND t.released_at IS NULL`,
      [organizationId, tokenId.toString()],
    );
    return row ? { subject: { kind: "token", tokenId }, eventRef: row.event_ref, eventId: row.event_id } : null;
  }

  /** The organization's event of this eventId (not released). */
  async ledgerEvent(organizationId: string, eventId: string): Promise<LedgerSubject | null> {
    const [row] = await this.dataSource.query<{ id: string; event_index: string }[]>(
      `SELECT id, event_index::text FROM events WHERE organization_id = $1 AND event_id = $2 AND released_at IS NULL`,
      [organizationId, eventId],
    );
    return row ? { subject: { kind: "event", eventIndex: BigInt(row.event_index) }, eventRef: row.id, eventId } : null;
  }

  /**
   * Tokens of the event that the ledger says `holder` holds (the receipt watcher and the transfer
   * follower record every confirmed Transfer): a range of tickets_holder_idx, since an event's tokens
   * are the tokenIds eventIndex << 64 | serial.
   */
  async tokensHeldInEvent(organizationId: string, eventIndex: bigint, holder: string): Promise<bigint[]> {
    const rows = await this.dataSource.query<{ token_id: string }[]>(
      `SELECT token_id::text FROM tickets
        WHERE organization_id = $1 AND holder = $2 AND token_id >= $3 AND token_id < $4 AND released_at IS NULL
        ORDER BY token_id LIMIT ${MAX_EVENT_CANDIDATES}`,
      [organizationId, holder, (eventIndex << UINT64_BITS).toString(), ((eventIndex + 1n) << UINT64_BITS).toString()],
    );
    return rows.map((row) => BigInt(row.token_id));
  }
}

interface ChallengeRow {
  organization_id: string;
  chain_id: string;
  registry_address: string;
  token_id: string | null;
  event_ref: string;
  event_id: string;
  event_index: string | null;
  expiry: string;
  used: boolean;
}
