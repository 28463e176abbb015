import { writeFileSync } from "node:fs";

import { network } from "hardhat";

import type { GasFigures } from "../../scripts/lib/gas-figures.js";
import { GAS_TARGETS, measureGas, TICKET_ACTIONS } from "./gas/measure-gas.js";
import { measureReferenceGas } from "./reference-gas.js";

/**
 * The gas figures of `npm run bench` (bench/gas-figures.ts), measured as `npm run gas` measures them
 * without rewriting gas-snapshot.json, and the reference contracts in the same run. The benchmark runs
 * in the service's CommonJS process, which cannot load Hardhat: it runs this script through
 * `hardhat run` and reads the JSON from the file GAS_FIGURES_FILE names (stdout without it).
 */
async function main(): Promise<void> {
  const connection = await network.create();
  const snapshot = await measureGas(connection);
  const reference = await measureReferenceGas(connection);
  const figures: GasFigures = { actions: TICKET_ACTIONS, targets: GAS_TARGETS, snapshot, reference };
  const json = `${JSON.stringify(figures, null, 2)}\n`;
  const file = process.env.GAS_FIGURES_FILE;
  if (file) writeFileSync(file, json);
  else process.stdout.write(json);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
