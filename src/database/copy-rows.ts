import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";

import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { EntityManager } from "typeorm";

export type CopyValue = string | number | boolean | bigint | null;

/**
 * Up to this many rows go in one INSERT of arrays instead of a COPY. A COPY costs two round trips
 * and four socket writes whatever its size (the statement, PostgreSQL's answer, a header and the
 * data, the end); on an on-sale's requests of 100 tickets those writes were a third of the api's
 * CPU. Past a few thousand rows COPY is the faster path by far.
 */
export const INSERT_MAX_ROWS = 1_000;

/**
 * Inserts rows in acceptance order (sequence defaults follow it): with COPY, PostgreSQL's bulk path,
 * several times faster than a multi-row INSERT for the thousands of rows one /stream request writes;
 * below INSERT_MAX_ROWS with one INSERT of a column of values each. A unique violation aborts the
 * transaction either way (COPY has no ON CONFLICT); callers treat it as a conflict and evaluate again.
 */
export async function copyRows(manager: EntityManager, table: string, columns: readonly string[], rows: readonly CopyValue[][]): Promise<void> {
  if (rows.length === 0) return;
  const runner = manager.queryRunner;
  if (!runner) throw new Error("copyRows needs a transaction's entity manager");
  if (rows.length <= INSERT_MAX_ROWS) {
    await insertRows(manager, table, columns, rows);
    return;
  }
  const client = (await runner.connect()) as PoolClient;
  const sink = client.query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`));
  await pipeline(Readable.from(chunks(rows)), sink);
}

/** Each column's SQL type, by table, read from the catalog once per process: unnest needs typed arrays. */
const columnTypes = new Map<string, Promise<Map<string, string>>>();

function typesOf(manager: EntityManager, table: string): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (!types) {
    types = manager
      .query<{ name: string; type: string }[]>(
        `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
        [table],
      )
      .then((rows) => new Map(rows.map((row) => [row.name, row.type])));
    // A failed read (the transaction aborted meanwhile) is read again next time.
    types.catch(() => columnTypes.delete(table));
    columnTypes.set(table, types);
  }
  return types;
}

async function insertRows(manager: EntityManager, table: string, columns: readonly string[], rows: readonly CopyValue[][]): Promise<void> {
  const types = await typesOf(manager, table);
  const arrays = columns.map((_, column) => arrayLiteral(rows, column));
  const unnest = columns.map((column, index) => {
    const type = types.get(column);
    if (!type) throw new Error(`${table} has no column ${column}`);
    return `$${index + 1}::${type}[]`;
  });
  // WITH ORDINALITY and ORDER BY: the rows are inserted, and take their sequence values, in the order given.
  await manager.query(
    `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${columns.map((_, index) => `r.c${index}`).join(", ")}
       FROM unnest(${unnest.join(", ")}) WITH ORDINALITY AS r(${columns.map((_, index) => `c${index}`).join(", ")}, position) ORDER BY r.position`,
    arrays,
  );
}

/**
 * A column of `rows` as PostgreSQL's array text, `{"a","b",NULL}`. node-postgres would write it from
 * a JavaScript array too, but with two regular-expression replaces per element: 4.5% of the api's
 * CPU in the on-sale's profile. Inside double quotes only backslash and double quote are escaped.
 */
export function arrayLiteral(rows: readonly CopyValue[][], column: number): string {
  let text = "{";
  for (let index = 0; index < rows.length; index++) {
    const value = rows[index][column];
    if (index > 0) text += ",";
    if (value === null) {
      text += "NULL";
      continue;
    }
    const element = typeof value === "string" ? value : String(value);
    text += '"' + (/["\\]/.test(element) ? element.replace(/["\\]/g, "\\$&") : element) + '"';
  }
  return text + "}";
}

/**
 * Rows per write: PostgreSQL takes in each chunk while the next is formatted, so only the first
 * chunk's formatting is not overlapped with its work (2,500 rows a chunk left about half of a
 * 5000-row copy's formatting before PostgreSQL had anything); still a few socket writes per copy.
 */
const ROWS_PER_CHUNK = 500;

function* chunks(rows: readonly CopyValue[][]): Generator<string> {
  let chunk = "";
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    let line = copyText(row[0]);
    for (let column = 1; column < row.length; column++) line += "\t" + copyText(row[column]);
    chunk += line + "\n";
    if ((index + 1) % ROWS_PER_CHUNK === 0) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}

/** COPY's text format: \N is NULL; backslash, tab, newline and carriage return are escaped. */
export function copyText(value: CopyValue): string {
  if (value === null) return "\\N";
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value !== "string") return String(value);
  const text = value;
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] as string) : text;
}
