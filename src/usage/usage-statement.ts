import type { UsageCountsDto, UsageGroupDto, UsageLineDto, UsageStatementDto } from "./dto/usage-statement.dto";
import type { UsageQuery } from "./usage-query";
import { USAGE_KINDS, type UsageKind } from "./usage-kinds";
import type { UsageCounts, UsageSum } from "./usage.store";

/** Every organization's statement over one range, and their sum (`npm run cli -- usage report`). */
export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageQuery["groupBy"];
  organizations: UsageStatementDto[];
  totals: UsageCountsDto;
}

const NOTHING: UsageCounts = { accepted: 0, confirmed: 0, failed: 0, transactions: 0, gas: 0n, feeWei: 0n };

/** Sums as the API shows them: amounts as decimal strings. */
export function countsView(counts: UsageCounts): UsageCountsDto {
  return {
    accepted: counts.accepted,
    confirmed: counts.confirmed,
    failed: counts.failed,
    transactions: counts.transactions,
    gas: counts.gas.toString(),
    feeWei: counts.feeWei.toString(),
  };
}

/** One organization's statement from its sums (as UsageStore gives them, any order). */
export function statementOf(ticketeerId: string, query: UsageQuery, sums: readonly UsageSum[]): UsageStatementDto {
  const groups = new Map<string, { lines: UsageLineDto[]; totals: UsageCounts }>();
  const groupOf = (key: string) => groups.get(key) ?? groups.set(key, { lines: [], totals: NOTHING }).get(key)!;
  let totals = NOTHING;
  for (const sum of sums) {
    if (sum.level === "organization") totals = sum;
    else if (sum.level === "group" && sum.group !== null) groupOf(sum.group).totals = sum;
    else if (sum.level === "line" && sum.group !== null && isUsageKind(sum.kind)) groupOf(sum.group).lines.push({ kind: sum.kind, ...countsView(sum) });
  }
  return {
    ticketeerId,
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    groupBy: query.groupBy,
    groups: [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, group]): UsageGroupDto => ({
        ...(query.groupBy === "day" ? { day: key } : { eventId: key }),
        actions: group.lines.sort((a, b) => USAGE_KINDS.indexOf(a.kind) - USAGE_KINDS.indexOf(b.kind)),
        totals: countsView(group.totals),
      })),
    totals: countsView(totals),
  };
}

/** Every organization's statement (one for each organization named, in that order, even with nothing in it) and the sum of all. */
export function reportOf(organizations: readonly { id: string; ticketeerId: string }[], query: UsageQuery, sums: readonly UsageSum[]): UsageReport {
  const byOrganization = new Map<string, UsageSum[]>();
  for (const sum of sums)
    if (sum.organizationId !== null) (byOrganization.get(sum.organizationId) ?? byOrganization.set(sum.organizationId, []).get(sum.organizationId)!).push(sum);
  const all = sums.find((sum) => sum.level === "all");
  return {
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    groupBy: query.groupBy,
    organizations: organizations.map((organization) => statementOf(organization.ticketeerId, query, byOrganization.get(organization.id) ?? [])),
    totals: countsView(all ?? NOTHING),
  };
}

function isUsageKind(kind: string | null): kind is UsageKind {
  return kind !== null && (USAGE_KINDS as readonly string[]).includes(kind);
}
