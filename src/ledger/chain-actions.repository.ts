import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { ChainAction } from "./entities/chain-action.entity";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads of the action ledger. Writes happen only inside an acceptance (ActionRecorder). */
@Injectable()
export class ChainActionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repository() {
    return this.dataSource.getRepository(ChainAction);
  }

  async findByOrganizationAndPromise(organizationId: string, promise: string): Promise<ChainAction | null> {
    if (!UUID.test(promise)) return null;
    return this.repository.findOneBy({ id: promise.toLowerCase(), organizationId });
  }

  async listForTicket(ticketRef: string): Promise<ChainAction[]> {
    return this.repository.find({ where: { ticketRef }, order: { seq: "ASC" } });
  }

  /** The event's own actions (registration and updates), without its tickets'. */
  async listForEvent(eventRef: string): Promise<ChainAction[]> {
    return this.repository
      .createQueryBuilder("action")
      .where("action.event_ref = :eventRef AND action.ticket_ref IS NULL", { eventRef })
      .orderBy("action.seq", "ASC")
      .getMany();
  }

  async countWaitingOlderThan(ageMs: number): Promise<number> {
    const rows = (await this.dataSource.query(
      `SELECT count(*)::int AS count FROM chain_actions WHERE status = 'waiting_broadcast' AND created_at < now() - make_interval(secs => $1)`,
      [ageMs / 1000],
    )) as { count: number }[];
    return rows[0]?.count ?? 0;
  }
}
