import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SignerLocks } from "../../src/chain/writer/signer-locks";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

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
});
