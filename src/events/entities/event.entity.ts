import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from "typeorm";

import { bigintColumn } from "../../database/columns";

/** An integrator's event, as accepted; `eventIndex` numbers it in the on-chain registry. */
@Entity("events")
@Index(["organizationId", "eventId"], { unique: true, where: "released_at IS NULL" })
export class EventEntity {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @Column({ name: "event_id", type: "text" })
  eventId: string;

  @Column({ name: "event_index", type: "bigint", unique: true, transformer: bigintColumn })
  eventIndex: bigint;

  @Column({ type: "text" })
  name: string;

  @Column({ name: "ticketeer_name", type: "text" })
  ticketeerName: string;

  @Column({ type: "text" })
  currency: string;

  @Column({ name: "shop_url", type: "text" })
  shopUrl: string;

  @Column({ name: "image_url", type: "text" })
  imageUrl: string;

  /** Not on chain: part of the event's canonical metadata; blank for none. */
  @Column({ type: "text" })
  description: string;

  /** The image of the event's tickets that have no uri of their own; blank: imageUrl stands in. */
  @Column({ name: "ticket_image_url", type: "text" })
  ticketImageUrl: string;

  @Column({ type: "double precision" })
  latitude: number;

  @Column({ type: "double precision" })
  longitude: number;

  @Column({ name: "start_time", type: "numeric", precision: 20, scale: 0, transformer: bigintColumn })
  startTime: bigint;

  @Column({ name: "end_time", type: "numeric", precision: 20, scale: 0, transformer: bigintColumn })
  endTime: bigint;

  @Column({ name: "callback_url", type: "text" })
  callbackUrl: string;

  /**
   * Tickets sold (accepted) in this event by acceptances that held it locked. Those that did not
   * (sales alone) record theirs as rows of `event_sales`: the event's tickets sold are both together
   * (EventsStore.ticketsSoldOf).
   */
  @Column({ name: "tickets_sold", type: "bigint", transformer: bigintColumn })
  ticketsSold: bigint;

  /**
   * The last serial handed out to this event's tickets: sales reserve their serials past it. A range
   * an acceptance reserved and did not use leaves a gap, so it may exceed `ticketsSold`.
   */
  @Column({ name: "last_serial", type: "bigint", transformer: bigintColumn })
  lastSerial: bigint;

  /**
   * When the event's cancellation was accepted; null while it is not cancelled. Every one of its
   * tickets reads as cancelled from it: no ticket row changes.
   */
  @Column({ name: "cancelled_at", type: "timestamptz", nullable: true })
  cancelledAt: Date | null;

  /**
   * Since when every attempt to deliver to callbackUrl failed (null after one succeeded); when that
   * lasts WEBHOOK_DISABLE_AFTER_HOURS, the callbackUrl is disabled (`callbackDisabledAt`) and its
   * callbacks are kept without being attempted. An updateEvent that carries a callbackUrl (the same
   * or another) clears both: the integrator says where callbacks go now.
   */
  @Column({ name: "callback_failing_since", type: "timestamptz", nullable: true, insert: false })
  callbackFailingSince: Date | null;

  @Column({ name: "callback_disabled_at", type: "timestamptz", nullable: true, insert: false })
  callbackDisabledAt: Date | null;

  /**
   * Set when the integrator cancelled the event's registration before it went out: the row keeps its
   * actions' history, but the event no longer exists and its eventId may be registered again.
   */
  @Column({ name: "released_at", type: "timestamptz", nullable: true, insert: false, update: false })
  releasedAt: Date | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
