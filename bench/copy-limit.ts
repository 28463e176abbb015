import { pipeline } from "node:stream/promises";
import { Readable, Writable } from "node:stream";

import { Client } from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";

import { median } from "./stats";

/**
 * PostgreSQL's own time for the rows one `/stream` request wrote: for each of the last `runs`
 * requests of `actions` actions, the rows its acceptance transaction inserted (every table holding
 * at least `actions` rows whose `xmin` is that transaction: chain_actions, tickets, …; the single
 * `events` row it updated is not a COPY, and tables that triggers fill, such as chain_action_changes,
 * are filled again by the same triggers) are exported as COPY text, and then, in one transaction,
 * deleted (not timed) and copied back byte for byte with `COPY … FROM STDIN` (pg-copy-streams, as
 * the service), tables in foreign-key order, and committed: timed from the first COPY to the end of
 * the COMMIT. The same rows into the same tables of the same database; the deleted versions left
 * behind make the unique-index checks a little slower than on a fresh table, if anything.
 */
export interface CopyLimit {
  runs: number;
  tables: { table: string; rows: number }[];
  medianMs: number;
}

/**
 * `perCopy` transactions' rows go into one COPY per table (the on-sale's requests of 100 copied 50 at a
 * time: the rows of 5000 sales, as one /stream request writes). With `atMost`, fewer runs are taken
 * when fewer untouched transactions are left (the chain writer rewrites the rows it broadcast).
 */
export async function measureCopyLimit(
  databaseUrl: string,
  actions: number,
  runs: number,
  { perCopy = 1, atMost = false }: { perCopy?: number; atMost?: boolean } = {},
): Promise<CopyLimit> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows: found } = await db.query<{ xid: string }>(
      `SELECT xmin::text AS xid FROM chain_actions GROUP BY xmin::text HAVING count(*) = $1 ORDER BY max(created_at) DESC LIMIT $2`,
      [actions, runs * perCopy],
    );
    const available = Math.floor(found.length / perCopy);
    if (available < (atMost ? 1 : runs)) throw new Error(`only ${found.length} transactions of ${actions} actions found`);
    const groups = Array.from({ length: Math.min(runs, available) }, (_, run) => found.slice(run * perCopy, (run + 1) * perCopy).map(({ xid }) => xid));
    const filledByTriggers = await tablesFilledByTriggers(db);
    const tables = (await tablesInForeignKeyOrder(db)).filter((table) => !filledByTriggers.has(table));
    const timings: number[] = [];
    let written: { table: string; rows: number }[] = [];
    for (const xids of groups) {
      const ofGroup = `xmin::text = ANY('{${xids.join(",")}}'::text[])`;
      const copies: { table: string; rows: number; text: Buffer }[] = [];
      for (const table of tables) {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${ofGroup}`);
        if (rows[0].n < actions * perCopy) continue;
        copies.push({ table, rows: rows[0].n, text: await exportRows(db, `SELECT * FROM ${table} WHERE ${ofGroup}`) });
      }
      await db.query("BEGIN");
      for (const copy of [...copies].reverse()) await db.query(`DELETE FROM ${copy.table} WHERE ${ofGroup}`);
      const started = performance.now();
      for (const copy of copies) await pipeline(Readable.from([copy.text]), db.query(copyFrom(`COPY ${copy.table} FROM STDIN`)));
      await db.query("COMMIT");
      timings.push(performance.now() - started);
      written = copies.map(({ table, rows }) => ({ table, rows }));
    }
    return { runs: timings.length, tables: written, medianMs: median(timings) };
  } finally {
    await db.end();
  }
}

async function exportRows(db: Client, select: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(
    db.query(copyTo(`COPY (${select}) TO STDOUT`)),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(chunks);
}

/** The public tables, each after the tables its foreign keys refer to. */
async function tablesInForeignKeyOrder(db: Client): Promise<string[]> {
  const { rows: tables } = await db.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const { rows: references } = await db.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'`,
  );
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const { parent } of references.filter((reference) => reference.child === table && reference.parent !== table)) visit(parent, path);
    ordered.push(table);
  };
  for (const { name } of tables) visit(name, new Set());
  return ordered;
}

/** Tables a trigger function inserts into: the COPY into the trigger's table fills them again. */
async function tablesFilledByTriggers(db: Client): Promise<Set<string>> {
  const { rows } = await db.query<{ source: string }>(
    `SELECT DISTINCT p.prosrc AS source FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid WHERE NOT t.tgisinternal`,
  );
  return new Set(rows.flatMap(({ source }) => [...source.matchAll(/INSERT\s+INTO\s+([a-z_][a-z0-9_]*)/gi)].map((match) => match[1].toLowerCase())));
}
