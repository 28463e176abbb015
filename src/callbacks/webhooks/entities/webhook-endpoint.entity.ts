import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from "typeorm";

/** Why an endpoint is disabled: the integrator asked (`PATCH enabled: false`), or every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS. */
export type DisabledReason = "request" | "failing";

/**
 * An organization's webhook endpoint: a receiver of its own beside each event's callbackUrl, taking
 * a copy of every callback whose action it lists (all of them when `actions` is null).
 */
@Entity("webhook_endpoints")
@Index(["organizationId", "createdAt", "id"])
export class WebhookEndpoint {
  @PrimaryColumn("uuid")
  id: string;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @Column({ type: "text" })
  url: string;

  /** The callback actions it takes; null for all of them. */
  @Column({ type: "text", array: true, nullable: true })
  actions: string[] | null;

  @Column({ type: "text", default: "" })
  description: string;

  @Column({ type: "boolean", default: true })
  enabled: boolean;

  @Column({ name: "disabled_reason", type: "text", nullable: true })
  disabledReason: DisabledReason | null;

  @Column({ name: "disabled_at", type: "timestamptz", nullable: true })
  disabledAt: Date | null;

  /** The first failed attempt since its last delivered one; null while its last attempt succeeded (or it had none). */
  @Column({ name: "failing_since", type: "timestamptz", nullable: true })
  failingSince: Date | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @UpdateDateColumn({ name: "updated_at", type: "timestamptz" })
  updatedAt: Date;
}
