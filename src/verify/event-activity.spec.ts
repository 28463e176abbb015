import { Interface, type Log, solidityPacked, zeroPadValue } from "ethers";
import { describe, expect, it } from "vitest";

import { TicketRegistry__factory } from "../../typechain-types";
import { tokenIdOf } from "../registry";
import { emptyActivity, recordTokenIds, tallyLogs } from "./event-activity";

const registry = new Interface(TicketRegistry__factory.abi);
const CUSTODY = "0x00000000000000000000000000000000000c0575";
const WALLET = "0x000000000000000000000000000000000000beef";
const mine = (serial: bigint) => tokenIdOf(7n, serial);
const other = tokenIdOf(8n, 1n);

let block = 100;
function log(name: string, args: unknown[]): Log {
  const encoded = registry.encodeEventLog(name, args);
  block += 1;
  return { topics: encoded.topics, data: encoded.data, blockNumber: block, transactionHash: zeroPadValue(`0x${block.toString(16)}`, 32) } as unknown as Log;
}
const records = (...tokenIds: bigint[]) =>
  solidityPacked(
    tokenIds.flatMap(() => ["uint128", "uint64"]),
    tokenIds.flatMap((id) => [id, 1_750_000_000n]),
  );

describe("recordTokenIds", () => {
  it("reads the tokenIds of packed 24-byte (tokenId, orderTime) records and ignores a trailing partial one", () => {
    expect(recordTokenIds(records(mine(1n), other))).toEqual([mine(1n), other]);
    expect(recordTokenIds(records(mine(1n)) + "ff")).toEqual([mine(1n)]);
    expect(recordTokenIds("0x")).toEqual([]);
  });
});

describe("tallyLogs", () => {
  it("counts the event's check-ins, invalidations, claims and resales, lists its latest transactions and tokens, and skips other events", () => {
    const logs = [
      log("TicketSold", [mine(1n), zeroPadValue("0x01", 32), 1250n, 1n]),
      log("TicketSold", [mine(2n), zeroPadValue("0x02", 32), 1250n, 1n]),
      log("TicketSold", [other, zeroPadValue("0x03", 32), 1250n, 1n]),
      log("TicketResold", [mine(1n), 1n, 1500n, 2n]),
      log("TicketsCheckedIn", [records(mine(1n), mine(2n), other)]),
      log("TicketsInvalidated", [records(other)]),
      log("Transfer", [CUSTODY, WALLET, mine(1n)]),
    ];
    const resale = logs[3];
    // The resale's own move to the next custodial holder, in its transaction: no claim.
    logs.splice(4, 0, { ...log("Transfer", [CUSTODY, WALLET.replace("beef", "c057"), mine(1n)]), transactionHash: resale.transactionHash } as Log);
    const tally = tallyLogs(emptyActivity(100), logs, 200, { eventIndex: 7n, custody: CUSTODY }, registry);
    expect(tally).toMatchObject({ scannedTo: 200, checkedIn: 2, invalidated: 0, claimed: 1, resales: 1, tokens: [mine(2n), mine(1n)] });
    expect(tally.recent.map((entry) => entry.kind)).toEqual(["claim", "check-in", "resale", "sale", "sale"]);
    expect(tally.recent[0].blockNumber).toBeGreaterThan(tally.recent[1].blockNumber);

    const more = tallyLogs(tally, [log("TicketsInvalidated", [records(mine(2n))])], 300, { eventIndex: 7n, custody: CUSTODY }, registry);
    expect(more).toMatchObject({ scannedTo: 300, invalidated: 1, checkedIn: 2 });
    expect(tally.invalidated).toBe(0);
  });
});
