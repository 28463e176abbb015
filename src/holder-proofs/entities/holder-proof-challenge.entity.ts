import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from "typeorm";

import { bigintColumn } from "../../database/columns";

/**
 * A holder proof's one-time challenge: what was issued to an organization for a token or an event,
 * consumed by the first proof that passes. Read and written with SQL (HolderProofsStore) so that the
 * consumption is one atomic UPDATE.
 */
@Entity("holder_proof_challenges")
@Index(["expiry"])
export class HolderProofChallenge {
  /** 32 random bytes: the message's `nonce`. */
  @PrimaryColumn({ type: "bytea" })
  nonce: Buffer;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @Column({ name: "chain_id", type: "numeric", precision: 78, scale: 0, transformer: bigintColumn })
  chainId: bigint;

  @Column({ name: "registry_address", type: "text" })
  registryAddress: string;

  /** A token proof's token; null for an event proof. */
  @Column({ name: "token_id", type: "numeric", precision: 39, scale: 0, nullable: true, transformer: bigintColumn })
  tokenId: bigint | null;

  /** The ledger's event of the token, or the event proved. */
  @Column({ name: "event_ref", type: "uuid" })
  eventRef: string;

  /** An event proof's event, by its registry index; null for a token proof. */
  @Column({ name: "event_index", type: "bigint", nullable: true, transformer: bigintColumn })
  eventIndex: bigint | null;

  /** Unix seconds, as the message states it. */
  @Column({ type: "bigint", transformer: bigintColumn })
  expiry: bigint;

  @Column({ name: "used_at", type: "timestamptz", nullable: true })
  usedAt: Date | null;

  /** The holder the consuming proof established. */
  @Column({ type: "text", nullable: true })
  holder: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
