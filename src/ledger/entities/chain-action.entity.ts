import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from "typeorm";

import { bigintColumn } from "../../database/columns";
import type { ChainActionKind, ChainActionStatus } from "../chain-action-kind";

/**
 * The action ledger: one row per accepted action, written in the same transaction as the state it
 * changes. Its id is the promise the integrator holds; `seq` is the acceptance order the chain
 * follows.
 */
@Entity("chain_actions")
export class ChainAction {
  @PrimaryColumn({ type: "uuid" })
  id: string;

  @Column({ type: "bigint", insert: false, update: false, transformer: bigintColumn })
  seq: bigint;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @Column({ type: "text" })
  kind: ChainActionKind;

  /** The action or endpoint name the integrator used (`soldTicket`, `checkedin`, ...). */
  @Column({ name: "requested_as", type: "text" })
  requestedAs: string;

  @Column({ name: "event_ref", type: "uuid" })
  eventRef: string;

  @Column({ name: "ticket_ref", type: "uuid", nullable: true })
  ticketRef: string | null;

  @Column({ type: "text" })
  status: ChainActionStatus;

  /**
   * The registry batch item this action becomes (bigints as decimal strings); null when nothing goes on
   * chain. For a transferred action: its from, to, the log's index in its block and the transfer's key.
   */
  @Column({ type: "jsonb", nullable: true })
  payload: Record<string, unknown> | null;

  @Column({ name: "tx_hash", type: "text", nullable: true })
  txHash: string | null;

  @Column({ name: "block_number", type: "bigint", nullable: true, transformer: bigintColumn })
  blockNumber: bigint | null;

  /** The hash of the block that confirmed the action: which block at blockNumber, so a reorg cannot pass unnoticed. */
  @Column({ name: "block_hash", type: "text", nullable: true })
  blockHash: string | null;

  @Column({ name: "error_code", type: "text", nullable: true })
  errorCode: string | null;

  @Column({ name: "error_message", type: "text", nullable: true })
  errorMessage: string | null;

  @Column({ name: "request_id", type: "text", nullable: true })
  requestId: string | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
