import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from "typeorm";

import type { KeyScope } from "../key-scope";
import { Organization } from "./organization.entity";

/** Only the key's SHA-256 is stored; its first characters find the row without scanning. */
@Entity("api_keys")
export class ApiKey {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Column({ name: "organization_id", type: "uuid" })
  organizationId: string;

  @ManyToOne(() => Organization, { onDelete: "CASCADE" })
  @JoinColumn({ name: "organization_id" })
  organization?: Organization;

  @Column({ type: "text", unique: true })
  prefix: string;

  @Column({ name: "secret_hash", type: "text" })
  secretHash: string;

  @Column({ type: "text", default: "" })
  label: string;

  /** What the key may do (key-scope.ts). */
  @Column({ type: "text", default: "full" })
  scope: KeyScope;

  /** The IP ranges the key may be used from (CIDR, as PostgreSQL writes them); null for anywhere. */
  @Column({ name: "allowed_ips", type: "cidr", array: true, nullable: true })
  allowedIps: string[] | null;

  /** When the key last authenticated a request, to the minute (AuthService); null if never. */
  @Column({ name: "last_used_at", type: "timestamptz", nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;

  @Column({ name: "revoked_at", type: "timestamptz", nullable: true })
  revokedAt: Date | null;
}
