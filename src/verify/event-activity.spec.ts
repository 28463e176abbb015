import { getAddress, Interface, type Log, solidityPacked, toBeHex, zeroPadValue } from "ethers";
import { describe, expect, it } from "vitest";

import { TicketRegistry__factory } from "../../typechain-types";
import { custodyMaskOf, tokenIdOf } from "../registry";
import { emptyActivity, recordTokenIds, tallyLogs } from "./event-activity";

const registry = new Interface(TicketRegistry__factory.abi);
const MASK = custodyMaskOf(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
/** A custodial address of event 7: its custody (serial and resales 0), or a ticket's holder after `resales` resales. */
const custodial = (serial = 0n, resales = 0n) => getAddress(toBeHex(MASK ^ ((7n << 96n) | (serial << 32n) | resales), 20));
const CUSTODY = custodial();
const WALLET = "0x000000000000000000000000000000000000beef";
const OTHER_WALLET = "0x000000000000000000000000000000000000cafe";
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
      log("Transfer", [custodial(1n, 1n), WALLET, mine(1n)]),
      // A claimed token moved on between wallets: no second claim.
      log("Transfer", [WALLET, OTHER_WALLET, mine(1n)]),
    ];
    const resale = logs[3];
    // The resale's own move to the next custodial holder, in its transaction: no claim.
    logs.splice(4, 0, { ...log("Transfer", [CUSTODY, custodial(1n, 1n), mine(1n)]), transactionHash: resale.transactionHash } as Log);
    const tally = tallyLogs(emptyActivity(100), logs, 200, { eventIndex: 7n, custodyMask: MASK }, registry);
    expect(tally).toMatchObject({ scannedTo: 200, checkedIn: 2, invalidated: 0, claimed: 1, resales: 1, tokens: [mine(2n), mine(1n)] });
    expect(tally.recent.map((entry) => entry.kind)).toEqual(["claim", "check-in", "resale", "sale", "sale"]);
    expect(tally.recent[0].blockNumber).toBeGreaterThan(tally.recent[1].blockNumber);

    const more = tallyLogs(tally, [log("TicketsInvalidated", [records(mine(2n))])], 300, { eventIndex: 7n, custodyMask: MASK }, registry);
    expect(more).toMatchObject({ scannedTo: 300, invalidated: 1, checkedIn: 2 });
    expect(tally.invalidated).toBe(0);
  });
});
