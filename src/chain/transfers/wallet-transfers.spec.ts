import { getAddress, type Log, toBeHex, ZeroAddress, zeroPadValue } from "ethers";
import { describe, expect, it } from "vitest";

import { custodyMaskOf } from "../../registry";
import { walletTransfers } from "./wallet-transfers";

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const MASK = custodyMaskOf(80002n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const custody = getAddress(toBeHex((7n << 96n) ^ MASK, 20));
const ALICE = "0x52908400098527886E0F7030069857D2E4169EE7";
const BOB = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const TOKEN = (7n << 64n) | 3n;

function log(from: string, to: string, txHash: string, index: number, topic = TRANSFER): Log {
  return {
    topics: [topic, zeroPadValue(from, 32), zeroPadValue(to, 32), zeroPadValue(toBeHex(TOKEN), 32)],
    transactionHash: txHash,
    blockNumber: 40,
    blockHash: "0x" + "bb".repeat(32),
    index,
  } as unknown as Log;
}

describe("walletTransfers", () => {
  it("keeps the moves between wallets and leaves out mints and the registry's own moves out of custody", () => {
    const transfers = walletTransfers(
      [log(ZeroAddress, custody, "0x01", 0), log(custody, ALICE, "0x02", 1), log(ALICE, BOB, "0x03", 2), log(ALICE, BOB, "0x04", 3, "0x" + "12".repeat(32))],
      TRANSFER,
      MASK,
    );
    expect(transfers).toEqual([
      {
        tokenId: TOKEN,
        from: ALICE,
        to: BOB,
        txHash: "0x03",
        blockNumber: 40,
        blockHash: "0x" + "bb".repeat(32),
        logIndex: 2,
        key: `0x03/${TOKEN}/${ALICE}/${BOB}/0`,
      },
    ]);
  });

  it("names the same move twice in one transaction by its place, so that neither is taken for the other", () => {
    const keys = walletTransfers([log(ALICE, BOB, "0x05", 0), log(BOB, ALICE, "0x05", 1), log(ALICE, BOB, "0x05", 2)], TRANSFER, MASK).map((t) => t.key);
    expect(keys).toEqual([`0x05/${TOKEN}/${ALICE}/${BOB}/0`, `0x05/${TOKEN}/${BOB}/${ALICE}/0`, `0x05/${TOKEN}/${ALICE}/${BOB}/1`]);
  });
});
