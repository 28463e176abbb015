import type { Client } from "pg";

/** The rows PostgreSQL counts written to each table of the current database, and its commits. */
export interface TableWrites {
  commits: number;
  tables: Map<string, { inserted: number; updated: number; deleted: number }>;
}

/**
 * A snapshot of the database's cumulative statistics. Backends report theirs at the end of each
 * transaction at most once a second, so a snapshot lags by up to that much.
 */
export async function tableWrites(db: Client): Promise<TableWrites> {
  await db.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await db.query<{ relname: string; ins: string; upd: string; del: string }>(
    `SELECT relname, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_del::text AS del FROM pg_stat_user_tables`,
  );
  const commits = await db.query<{ commits: string }>(`SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = current_database()`);
  return {
    commits: Number(commits.rows[0].commits),
    tables: new Map(rows.map((row) => [row.relname, { inserted: Number(row.ins), updated: Number(row.upd), deleted: Number(row.del) }])),
  };
}

/** What was written between two snapshots, per `tickets`: the tables written most first, as table rows. */
export function writesPerTicket(before: TableWrites, after: TableWrites, tickets: number): Record<string, string | number>[] {
  const per = (count: number) => Math.round((count / tickets) * 100) / 100;
  const rows = [...after.tables.entries()].map(([table, now]) => {
    const then = before.tables.get(table) ?? { inserted: 0, updated: 0, deleted: 0 };
    const inserted = now.inserted - then.inserted;
    const updated = now.updated - then.updated;
    const deleted = now.deleted - then.deleted;
    return { table, total: inserted + updated + deleted, inserted: per(inserted), updated: per(updated), deleted: per(deleted) };
  });
  return [
    ...rows
      .filter((row) => per(row.total) > 0)
      .sort((a, b) => b.total - a.total)
      .map(({ total, ...row }) => ({ ...row, "rows per ticket": per(total) })),
    { table: "(transactions committed)", inserted: "", updated: "", deleted: "", "rows per ticket": per(after.commits - before.commits) },
  ];
}
