import hre from "hardhat";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { sortedAbi, storageLayoutLines } from "./contract-snapshots.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";
const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures");

/**
 * `npm run contract:snapshots`: writes the registry's ABI and storage layout as compiled now into
 * test/fixtures, where abi.test.ts and storage-layout.test.ts compare them with every
 * build. Run it only for a change that means to alter either, and commit both files with it.
 */
async function main(): Promise<void> {
  const { abi } = await hre.artifacts.readArtifact(CONTRACT);
  writeFileSync(join(FIXTURES, "TicketRegistry.abi.json"), `${JSON.stringify(sortedAbi(abi), null, 2)}\n`);
  writeFileSync(join(FIXTURES, "TicketRegistry.storage-layout.json"), `${JSON.stringify(await storageLayoutLines(hre.artifacts, CONTRACT), null, 2)}\n`);
  console.log(`Wrote the ABI and the storage layout of ${CONTRACT} into ${FIXTURES}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
