import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { ActionKind } from "../common/actions";
import type { UsageGrouping } from "./usage-query";

/** Sums of usage entries; `gas` and `feeWei` exact, as bigints. */
export interface UsageCounts {
  accepted: number;
  confirmed: number;
  failed: number;
  /** Distinct transactions that carried the counted actions. */
  transactions: number;
  gas: bigint;
  feeWei: bigint;
}

/**
 * One sum of the statement: of an organization's actions of one kind in one group (`line`), of all
 * kinds in one group (`group`), of the organization's whole range (`organization`), or, for every
 * organization at once, of all of them (`all`).
 */
export interface UsageSum extends UsageCounts {
  level: "line" | "group" | "organization" | "all";
  organizationId: string | null;
  ticketeerId: string | null;
  /** The UTC day (YYYY-MM-DD) or the eventId; null above the group level. */
  group: string | null;
  kind: ActionKind | null;
}

export interface UsageRange {
  from: Date;
  to: Date;
  groupBy: UsageGrouping;
}

interface UsageSumRow {
  level: number;
  organization_id: string | null;
  ticketeer_id: string | null;
  group_key: string | null;
  kind: ActionKind | null;
  accepted: string;
  confirmed: string;
  failed: string;
  transactions: string;
  gas: string;
  fee_wei: string;
}

/** GROUPING(organization_id, group_key, kind): which of the three each sum leaves out, as bits. */
const LEVELS: Record<number, UsageSum["level"]> = { 0: "line", 1: "group", 3: "organization", 7: "all" };

/**
 * A group's key. An event's is its eventId, not its row: an eventId freed by a cancelled registration
 * and registered again is one event to the integrator.
 */
const GROUP_KEYS: Record<UsageGrouping, string> = {
  day: `to_char(u.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  event: `COALESCE(e.event_id, u.event_ref::text)`,
};

/**
 * The statement's SQL: sums of usage_entries over a time range, never of the ledger. One
 * organization's range is read through usage_entries_organization_idx; every organization's through
 * usage_entries_recorded_brin. Either way the rows read are those of the range, whatever the
 * table's size.
 */
@Injectable()
export class UsageStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One organization's sums: per group and kind, per group, and over the range. */
  async organizationSums(organizationId: string, range: UsageRange): Promise<UsageSum[]> {
    return this.sums(range, organizationId);
  }

  /** Every organization's sums, as organizationSums gives each, and the sum over all of them. */
  async allSums(range: UsageRange): Promise<UsageSum[]> {
    return this.sums(range, null);
  }

  /** Every organization, by ticketeerId: a report lists each, with or without usage. */
  async organizations(): Promise<{ id: string; ticketeerId: string }[]> {
    const rows = await this.dataSource.query<{ id: string; ticketeer_id: string }[]>(`SELECT id, ticketeer_id FROM organizations ORDER BY ticketeer_id`);
    return rows.map((row) => ({ id: row.id, ticketeerId: row.ticketeer_id }));
  }

  private async sums(range: UsageRange, organizationId: string | null): Promise<UsageSum[]> {
    const sets = ["(organization_id, group_key, kind)", "(organization_id, group_key)", "(organization_id)", ...(organizationId === null ? ["()"] : [])];
    const rows = await this.dataSource.query<UsageSumRow[]>(
      `WITH entries AS (
         SELECT u.organization_id, ${GROUP_KEYS[range.groupBy]} AS group_key, u.kind, u.accepted, u.confirmed, u.failed, u.transaction_id, u.gas, u.fee_wei
           FROM usage_entries u
           ${range.groupBy === "event" ? "LEFT JOIN events e ON e.id = u.event_ref" : ""}
          WHERE ${organizationId === null ? "" : "u.organization_id = $3 AND "}u.recorded_at >= $1 AND u.recorded_at < $2
       ), sums AS (
         SELECT GROUPING(organization_id, group_key, kind) AS level, organization_id, group_key, kind,
                COALESCE(sum(accepted), 0)::text AS accepted, COALESCE(sum(confirmed), 0)::text AS confirmed, COALESCE(sum(failed), 0)::text AS failed,
                count(DISTINCT transaction_id)::text AS transactions, COALESCE(sum(gas), 0)::text AS gas, COALESCE(sum(fee_wei), 0)::text AS fee_wei
           FROM entries
          GROUP BY GROUPING SETS (${sets.join(", ")})
       )
       SELECT s.*, o.ticketeer_id FROM sums s LEFT JOIN organizations o ON o.id = s.organization_id`,
      organizationId === null ? [range.from, range.to] : [range.from, range.to, organizationId],
    );
    return rows.map(toSum);
  }
}

function toSum(row: UsageSumRow): UsageSum {
  return {
    level: LEVELS[row.level],
    organizationId: row.organization_id,
    ticketeerId: row.ticketeer_id,
    group: row.group_key,
    kind: row.kind,
    accepted: Number(row.accepted),
    confirmed: Number(row.confirmed),
    failed: Number(row.failed),
    transactions: Number(row.transactions),
    gas: BigInt(row.gas),
    feeWei: BigInt(row.fee_wei),
  };
}
