import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { ChainAction } from "./entities/chain-action.entity";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads of the action ledger. Writes happen only inside an acceptance (ActionRecorder). */
@Injectable()
export class ChainActionsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repository() {
    return this.dataSource.getRepository(ChainAction);
  }

  /** The organization's action with this id (the integrator's txPromise or actionPromise); null for anything else. */
  async findByOrganizationAndId(organizationId: string, actionId: string): Promise<ChainAction | null> {
    if (!UUID.test(actionId)) return null;
    return this.repository.findOneBy({ id: actionId.toLowerCase(), organizationId });
  }

  /** The integrator's ids of what the action acts on. */
  async subjectIdsOf(action: Pick<ChainAction, "eventRef" | "ticketRef">): Promise<{ eventId: string; ticketId: string | null }> {
    const [ids] = await this.dataSource.query<{ event_id: string; ticket_id: string | null }[]>(
      `SELECT e.event_id, t.ticket_id FROM events e LEFT JOIN tickets t ON t.id = $2 WHERE e.id = $1`,
      [action.eventRef, action.ticketRef],
    );
    return { eventId: ids.event_id, ticketId: ids.ticket_id };
  }

  /** The actions of each of these tickets, in acceptance order. */
  async listForTickets(ticketRefs: readonly string[]): Promise<Map<string, ChainAction[]>> {
    const byTicket = new Map<string, ChainAction[]>(ticketRefs.map((ref) => [ref, []]));
    if (ticketRefs.length === 0) return byTicket;
    const actions = await this.repository
      .createQueryBuilder("action")
      .where("action.ticket_ref = ANY(:ticketRefs)", { ticketRefs })
      .orderBy("action.seq", "ASC")
      .getMany();
    for (const action of actions) byTicket.get(action.ticketRef as string)?.push(action);
    return byTicket;
  }

  /** The event's own actions (registration, updates, cancellation), without its tickets'. */
  async listForEvent(eventRef: string): Promise<ChainAction[]> {
    return this.repository
      .createQueryBuilder("action")
      .where("action.event_ref = :eventRef AND action.ticket_ref IS NULL", { eventRef })
      .orderBy("action.seq", "ASC")
      .getMany();
  }

  /**
   * Which of these events have their cancellation confirmed on chain. A cancellation is an event's
   * own action (no ticket): saying so lets the event's partial index serve the statement, which
   * would otherwise scan every action of the ledger.
   */
  async confirmedCancellations(eventRefs: readonly string[]): Promise<Set<string>> {
    if (eventRefs.length === 0) return new Set();
    const rows = await this.dataSource.query<{ event_ref: string }[]>(
      `SELECT DISTINCT event_ref FROM chain_actions
        WHERE event_ref = ANY($1::uuid[]) AND ticket_ref IS NULL AND kind = 'cancelledEvent' AND status = 'confirmed'`,
      [eventRefs],
    );
    return new Set(rows.map((row) => row.event_ref));
  }

  /**
   * One count per status: each has its partial index. Asked for both statuses in one condition,
   * PostgreSQL scans the whole ledger (seconds at 10 M actions, every sweep).
   */
  async countWaitingOlderThan(ageMs: number): Promise<number> {
    const rows = await this.dataSource.query<{ count: number }[]>(
      `SELECT ((SELECT count(*) FROM chain_actions WHERE status = 'waiting_broadcast' AND created_at < now() - make_interval(secs => $1))
             + (SELECT count(*) FROM chain_actions WHERE status = 'waiting_funds' AND created_at < now() - make_interval(secs => $1)))::int AS count`,
      [ageMs / 1000],
    );
    return rows[0]?.count ?? 0;
  }
}
