import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from "typeorm";

import { bigintColumn } from "../../database/columns";

/** A ticket's accepted state. The chain catches up with it in acceptance order. */
@Entity("tickets")
@Index(["organizationId", "ticketId"], { unique: true, where: "released_at IS NULL" })
export class TicketEntity {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @Column({ name: "event_ref", type: "uuid" })
  eventRef: string;

  @Column({ name: "ticket_id", type: "text" })
  ticketId: string;

  @Column({ type: "bigint", transformer: bigintColumn })
  serial: bigint;

  @Column({ name: "token_id", type: "numeric", precision: 39, scale: 0, unique: true, transformer: bigintColumn })
  tokenId: bigint;

  @Column({ type: "text" })
  price: string;

  @Column({ type: "text" })
  uri: string;

  @Column({ name: "order_time", type: "numeric", precision: 20, scale: 0, transformer: bigintColumn })
  orderTime: bigint;

  @Column({ name: "checked_in", type: "boolean" })
  checkedIn: boolean;

  @Column({ type: "boolean" })
  invalidated: boolean;

  @Column({ type: "boolean" })
  claimed: boolean;

  @Column({ name: "claimed_to", type: "text", nullable: true })
  claimedTo: string | null;

  @Column({ type: "integer" })
  resales: number;

  /** The token's owner on chain as of the confirmed depth; null until its sale is confirmed. Written by the chain side only. */
  @Column({ type: "text", nullable: true, insert: false, update: false })
  holder: string | null;

  /**
   * Set when the registry refused the ticket's sale, or the integrator cancelled it before it went
   * out: the row keeps its actions' history, but the ticket no longer exists and its ticketId may be
   * sold again.
   */
  @Column({ name: "released_at", type: "timestamptz", nullable: true, insert: false, update: false })
  releasedAt: Date | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
