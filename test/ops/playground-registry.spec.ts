import { describe, expect, it } from "vitest";

import { ledgerKey, parseRecords, recordProblem } from "../../scripts/lib/playground-registry";

const RECORD = { chainId: 31337, address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", codeHash: "abc", deployedAt: "2026-11-26T00:00:00.000Z" };

describe("the playground's recorded registry", () => {
  it("is kept when it is on the chain and of the code compiled now", () => {
    expect(recordProblem(RECORD, 31337, "0x6080", "abc")).toBeNull();
  });

  it("is replaced when the chain lacks it, when its code changed, or when an older playground recorded no code hash", () => {
    expect(recordProblem(RECORD, 31337, "0x", "abc")).toBe("the recorded registry is not on the chain");
    expect(recordProblem(RECORD, 31337, "0x6080", "def")).toBe("the registry's code changed since it was deployed");
    expect(recordProblem({ ...RECORD, codeHash: undefined }, 31337, "0x6080", "abc")).toBe("the registry's code changed since it was deployed");
    expect(recordProblem({}, 31337, "0x", "abc")).toBe("no registry is recorded for this chain");
    expect(recordProblem(RECORD, 1, "0x6080", "abc")).toBe("no registry is recorded for this chain");
  });

  it("keeps one registry per ledger, keyed by its database without credentials; a file of one registry is the default ledger's", () => {
    expect(ledgerKey("postgres://user:secret@db.example:5433/ledger_a")).toBe("db.example:5433/ledger_a");
    const { chainId, address, codeHash, deployedAt } = RECORD;
    expect(parseRecords(RECORD, "127.0.0.1:5432/ticket_registry_dev")).toEqual({
      chainId,
      registries: { "127.0.0.1:5432/ticket_registry_dev": { address, codeHash, deployedAt } },
    });
    const records = { chainId, registries: { a: { address, codeHash, deployedAt } } };
    expect(parseRecords(records, "default")).toEqual(records);
    expect(parseRecords({}, "default")).toBeNull();
  });
});
