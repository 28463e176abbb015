import { expect } from "chai";
import hre from "hardhat";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { storageLayoutLines } from "../scripts/contract-snapshots.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";
const COMMITTED_LAYOUT = join(import.meta.dirname, "fixtures", "TicketRegistry.storage-layout.json");

describe("TicketRegistry storage layout", () => {
  it("is the committed layout (else `npm run contract:snapshots`, and say why in the change)", async () => {
    const committed = JSON.parse(readFileSync(COMMITTED_LAYOUT, "utf8")) as string[];
    expect(await storageLayoutLines(hre.artifacts, CONTRACT), `${COMMITTED_LAYOUT} differs from the compiled layout`).to.deep.equal(committed);
  });

  it("names every slot with its type, so that a moved or retyped variable shows", async () => {
    const lines = await storageLayoutLines(hre.artifacts, CONTRACT);
    expect(lines[0]).to.match(/^0:0 _name string \(32 bytes\)$/);
    expect(lines.some((line) => / _ticketFlags mapping\(uint256 => uint256\) /.test(line))).to.equal(true);
  });
});
