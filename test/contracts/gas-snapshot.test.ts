import { expect } from "chai";
import hre from "hardhat";

import { GAS_TOLERANCE, gasRegressions, readGasSnapshot } from "../../scripts/gas/gas-snapshot-file";
import { measureGas } from "../../scripts/gas/measure-gas";

describe("gas snapshot", () => {
  it(`holds every figure within ${GAS_TOLERANCE * 100}% of the committed gas-snapshot.json`, async () => {
    const measured = await measureGas(hre);
    const regressions = gasRegressions(readGasSnapshot(), measured);
    expect(regressions, `run "npm run gas" to accept the new figures:\n${regressions.join("\n")}`).to.deep.equal([]);
  });

  it("reports a figure more than the tolerance worse", () => {
    const committed = readGasSnapshot();
    const worse = structuredClone(committed);
    worse.scanned["100"] = Math.ceil(committed.scanned["100"] * (1 + GAS_TOLERANCE)) + 1;
    worse.sold["100"] = Math.floor(committed.sold["100"] * (1 + GAS_TOLERANCE));
    expect(gasRegressions(committed, worse)).to.deep.equal([`scanned.100: ${committed.scanned["100"]} -> ${worse.scanned["100"]}`]);
  });
});
