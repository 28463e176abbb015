import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from "typeorm";

/** A ticketing company: its ticketeerId is issued at onboarding and names it in every event. */
@Entity("organizations")
export class Organization {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Column({ name: "ticketeer_id", type: "text", unique: true })
  ticketeerId: string;

  @Column({ type: "text" })
  name: string;

  @CreateDateColumn({ name: "created_at", type: "timestamptz" })
  createdAt: Date;
}
