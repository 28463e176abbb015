import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SignerLocks } from "../../src/chain/writer/signer-locks";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";
import { eventually } from "../support/test-chain";

let db: StoreDatabase;
let sut: SignerLocks;

beforeAll(async () => {
  db = await openStoreDatabase();
  sut = new SignerLocks(db.dataSource);
});

afterAll(async () => {
  await db?.close();
});

describe("SignerLocks", () => {
  it("lets one holder at a time hold a name, across connections, until it releases it", async () => {
    const writer = await sut.tryAcquire("writer:0xA");
    expect(writer).not.toBeNull();
    expect(await sut.tryAcquire("writer:0xA")).toBeNull();

    const watcher = await sut.tryAcquire("watcher:0xA");
    expect(watcher).not.toBeNull();

    await writer?.release();
    const next = await sut.tryAcquire("writer:0xA");
    expect(next).not.toBeNull();
    await next?.release();
    await watcher?.release();
  });

  it("keeps no connection for a lock it could not take", async () => {
    const held = await sut.tryAcquire("writer:0xB");
    const connections = async () => {
      const [row] = await db.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database()`);
      return row.count;
    };
    const before = await connections();
    for (let attempt = 0; attempt < 30; attempt++) expect(await sut.tryAcquire("writer:0xB")).toBeNull();
    // The pool keeps idle connections open: what matters is that it does not keep growing with each refusal.
    expect(await connections()).toBeLessThanOrEqual(before + 1);
    await held?.release();
  });

  it("a lock whose connection the server ended is not handed out again in this process until its holder lets go", async () => {
    const holder = await sut.tryAcquire("writer:0xC");
    expect(holder).not.toBeNull();
    const [lock] = await db.dataSource.query<{ pid: number }[]>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid::int = hashtext('writer:0xC') AND granted`,
    );
    // As a database restart or a cut connection does: the session ends, and PostgreSQL frees its locks (57P01).
    await db.dataSource.query(`SELECT pg_terminate_backend($1)`, [lock.pid]);
    await eventually(async () =>
      (await db.dataSource.query<unknown[]>(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [lock.pid])).length === 0 ? true : undefined,
    );

    expect(await sut.tryAcquire("writer:0xC")).toBeNull();
    const elsewhere = new SignerLocks(db.dataSource);
    const other = await elsewhere.tryAcquire("writer:0xC");
    expect(other).not.toBeNull();
    await other?.release();

    await holder?.release();
    const next = await sut.tryAcquire("writer:0xC");
    expect(next).not.toBeNull();
    await next?.release();
  });
});
