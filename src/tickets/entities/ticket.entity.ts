import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from "typeorm";

import { bigintColumn } from "../../database/columns";
import type { TicketAttribute } from "../../registry";

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

  /** The integrator's name for the token; blank: the event's name and the ticket's number. */
  @Column({ type: "text" })
  name: string;

  /** The integrator's description of the token; blank: one written from the chain's facts. */
  @Column({ type: "text" })
  description: string;

  @Column({ name: "animation_url", type: "text" })
  animationUrl: string;

  /** The integrator's traits, in its order; the token shows them after the chain's. */
  @Column({ type: "jsonb" })
  attributes: TicketAttribute[];

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
