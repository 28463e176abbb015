import { concat, type Log, toBeHex, zeroPadValue } from "ethers";
import { describe, expect, it } from "vitest";

import { TicketRegistry__factory } from "../../typechain-types";
import { recordedMetadataHash } from "./metadata-records";

const registry = TicketRegistry__factory.createInterface();
const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const OTHER = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const token = (serial: bigint) => (3n << 64n) | serial;
const hash = (byte: string) => "0x" + byte.repeat(32);

/** A TicketsMetadataUpdated log of `address` holding these (tokenId, hash) records, packed as the registry packs them. */
function metadataLog(address: string, records: [bigint, string][]): Log {
  const packed = concat(records.flatMap(([tokenId, metadataHash]) => [zeroPadValue(toBeHex(tokenId), 16), metadataHash]));
  const { data, topics } = registry.encodeEventLog("TicketsMetadataUpdated", [packed]);
  return { address, data, topics } as unknown as Log;
}

describe("recordedMetadataHash", () => {
  it("finds the token's record among others of the registry's log", () => {
    const log = metadataLog(REGISTRY, [
      [token(1n), hash("aa")],
      [token(2n), hash("bb")],
      [token(3n), hash("cc")],
    ]);
    expect(recordedMetadataHash(registry, REGISTRY, [log], token(2n))).toBe(hash("bb"));
  });

  it("takes the last record of the token in the transaction: the registry applies items in order", () => {
    const logs = [metadataLog(REGISTRY, [[token(1n), hash("aa")]]), metadataLog(REGISTRY, [[token(1n), hash("dd")]])];
    expect(recordedMetadataHash(registry, REGISTRY, logs, token(1n))).toBe(hash("dd"));
  });

  it("answers null when no record names the token, and ignores another contract's log of the same shape", () => {
    expect(recordedMetadataHash(registry, REGISTRY, [metadataLog(REGISTRY, [[token(1n), hash("aa")]])], token(9n))).toBeNull();
    expect(recordedMetadataHash(registry, REGISTRY, [metadataLog(OTHER, [[token(1n), hash("aa")]])], token(1n))).toBeNull();
  });
});
