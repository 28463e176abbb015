import type { DataSource, QueryRunner } from "typeorm";
import { describe, expect, it } from "vitest";

import { CallbackOutboxStore, type ReceiverShares } from "./callback-outbox.store";

const SHARES: ReceiverShares = { full: [], inFlight: [], idleRoom: 100 };

/** A data source whose first connection cannot be opened (the database unreachable), and whose later ones answer empty claims. */
function unreachableOnce(): { dataSource: DataSource; opened: () => number } {
  let opened = 0;
  const dataSource = {
    createQueryRunner: (): QueryRunner => {
      const reachable = opened++ > 0;
      const runner = {
        isReleased: false,
        query: async (sql: string) => {
          if (!reachable) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          return sql.startsWith("SET") || sql.startsWith("RESET") ? [] : [[], 0];
        },
        release: async () => {
          runner.isReleased = true;
        },
      };
      return runner as unknown as QueryRunner;
    },
  } as unknown as DataSource;
  return { dataSource, opened: () => opened };
}

describe("CallbackOutboxStore claims", () => {
  it("opens a fresh connection for the next claim when the database could not be reached for the last one", async () => {
    const { dataSource, opened } = unreachableOnce();
    const store = new CallbackOutboxStore(dataSource);

    await expect(store.claimDue(10, 60_000, SHARES)).rejects.toThrow("ECONNREFUSED");
    await expect(store.claimDue(10, 60_000, SHARES)).resolves.toEqual([]);
    expect(opened()).toBe(2);
    await store.closeClaims();
  });
});
