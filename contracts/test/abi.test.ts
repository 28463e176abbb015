import { expect } from "chai";
import { Interface, type InterfaceAbi } from "ethers";
import hre from "hardhat";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { sortedAbi } from "../scripts/contract-snapshots.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";
const COMMITTED_ABI = join(import.meta.dirname, "fixtures", "TicketRegistry.abi.json");

/** One line per function, event and error, with parameter names, indexed flags and mutability. */
function signatures(abi: InterfaceAbi): string[] {
  return new Interface(abi).fragments.map((fragment) => fragment.format("full")).sort();
}

describe("TicketRegistry ABI", () => {
  it("is the committed ABI that the backend and its TypeChain types are built on", async () => {
    const { abi } = await hre.artifacts.readArtifact(CONTRACT);
    const committed = JSON.parse(readFileSync(COMMITTED_ABI, "utf8")) as typeof abi;
    const added = signatures(abi).filter((line) => !signatures(committed).includes(line));
    const removed = signatures(committed).filter((line) => !signatures(abi).includes(line));
    expect({ added, removed }, "functions, events or errors changed").to.deep.equal({ added: [], removed: [] });
    // Internal types (struct and enum names) and parameter names shape the TypeChain types as well.
    expect(sortedAbi(abi), `${COMMITTED_ABI} differs from the compiled ABI`).to.deep.equal(committed);
  });

  it("compares what the compiler may reorder, and nothing less", () => {
    const committed = JSON.parse(readFileSync(COMMITTED_ABI, "utf8")) as {
      type: string;
      name?: string;
      inputs?: { name: string; type: string; internalType?: string }[];
    }[];
    expect(sortedAbi([...committed].reverse())).to.deep.equal(committed);
    const renamed = structuredClone(committed);
    const setBaseURI = renamed.find((entry) => entry.name === "setBaseURI");
    setBaseURI!.inputs![0].name = "renamed";
    expect(sortedAbi(renamed)).to.not.deep.equal(committed);
  });
});
