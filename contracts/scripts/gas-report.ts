import { network } from "hardhat";

import { GAS_SNAPSHOT_PATH, writeGasSnapshot } from "./gas/gas-snapshot-file.js";
import { BATCH_SIZES, CANCELLED_EVENT_TICKETS, GAS_TARGETS, measureGas, TICKET_ACTIONS } from "./gas/measure-gas.js";
import { METADATA_HASH_BUDGET } from "./gas/metadata-gas.js";

/** Prints gas per ticket of every action and writes the snapshot that the gas test holds changes to. */
async function main(): Promise<void> {
  const snapshot = await measureGas(await network.create());
  const rows = TICKET_ACTIONS.map((action) => ({
    action,
    ...Object.fromEntries(BATCH_SIZES.map((size) => [`batch ${size}`, snapshot[action][`${size}`]])),
    "target at 100": GAS_TARGETS[action],
    met: snapshot[action]["100"] <= GAS_TARGETS[action] ? "yes" : "NO",
  }));
  console.log("Gas per ticket (batch gasUsed / tickets, 21,000 base included):");
  console.table(rows);
  const eventMet = snapshot.registerEvent <= GAS_TARGETS.registerEvent ? "yes" : "NO";
  console.log(`Register an event (all fields, 255-character strings): ${snapshot.registerEvent} gas, target ${GAS_TARGETS.registerEvent}, met: ${eventMet}`);
  const cancellations = CANCELLED_EVENT_TICKETS.map((tickets) => `${snapshot.cancelEvent[`${tickets}`]} with ${tickets} sold`).join(", ");
  const cancelMet = Math.max(...Object.values(snapshot.cancelEvent)) <= GAS_TARGETS.cancelEvent ? "yes" : "NO";
  console.log(`Cancel an event (the whole transaction): ${cancellations}; target ${GAS_TARGETS.cancelEvent}, met: ${cancelMet}`);
  const { soldWithMetadata, updateTicket, metadataHash } = snapshot;
  const hashMet = Math.max(...Object.values(metadataHash)) <= METADATA_HASH_BUDGET ? "yes" : "NO";
  console.log(`Sold with metadata, per ticket: ${soldWithMetadata["1"]} (batch 1), ${soldWithMetadata["10"]} (10), ${soldWithMetadata["100"]} (100)`);
  console.log(
    `Update a ticket's metadata, per ticket at a batch of 100: ${updateTicket.contiguous} (consecutive tokens), ${updateTicket.scattered} (64 serials apart)`,
  );
  console.log(
    `The metadata hash's share per ticket at a batch of 100: ${metadataHash.soldWithMetadata} of a sale (soldWithMetadata - sold), ` +
      `${metadataHash.updateTicket} of an update (MetadataHashBench with - without the hash); budget ${METADATA_HASH_BUDGET}, met: ${hashMet}`,
  );
  writeGasSnapshot(snapshot);
  console.log(`Wrote ${GAS_SNAPSHOT_PATH}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
