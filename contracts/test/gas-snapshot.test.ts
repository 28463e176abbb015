import { expect } from "chai";
import { network } from "hardhat";

import { GAS_TOLERANCE, gasRegressions, overBaseline, readGasSnapshot } from "../scripts/gas/gas-snapshot-file.js";
import { type GasSnapshot, measureGas } from "../scripts/gas/measure-gas.js";

describe("gas snapshot", () => {
  let measured: GasSnapshot;

  before(async function () {
    this.timeout(120_000);
    measured = await measureGas(await network.create());
  });

  it(`holds every figure within ${GAS_TOLERANCE * 100}% of the committed gas-snapshot.json`, () => {
    const regressions = gasRegressions(readGasSnapshot(), measured);
    expect(regressions, `run "npm run gas" to accept the new figures:\n${regressions.join("\n")}`).to.deep.equal([]);
  });

  it("keeps the actions of the baseline within its allowance per ticket", () => {
    const { baseline } = readGasSnapshot();
    expect(baseline, "gas-snapshot.json has a baseline").to.not.equal(undefined);
    expect(overBaseline(baseline!, measured)).to.deep.equal([]);
  });

  it("reports a figure more than the tolerance worse", () => {
    const committed = readGasSnapshot();
    const worse = structuredClone(committed);
    worse.scanned["100"] = Math.ceil(committed.scanned["100"] * (1 + GAS_TOLERANCE)) + 1;
    worse.sold["100"] = Math.floor(committed.sold["100"] * (1 + GAS_TOLERANCE));
    expect(gasRegressions(committed, worse)).to.deep.equal([`scanned.100: ${committed.scanned["100"]} -> ${worse.scanned["100"]}`]);
  });

  it("reports an action of the baseline over its allowance", () => {
    const { baseline } = readGasSnapshot();
    const worse = structuredClone(baseline!.figures);
    worse.claimed["100"] += baseline!.allowance + 1;
    worse.sold["100"] += baseline!.allowance;
    worse.registerEvent += 10_000;
    const before = baseline!.figures.claimed["100"];
    expect(overBaseline(baseline!, worse)).to.deep.equal([`claimed.100: ${before} -> ${worse.claimed["100"]} (allowed ${before + baseline!.allowance})`]);
  });
});
