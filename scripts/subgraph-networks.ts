/**
 * npm run subgraph:networks: writes subgraph/networks.json's address and start block of each network from the
 * deployment records contracts/scripts/deploy.ts wrote (deployments/<hardhat network>.json, or DEPLOYMENTS_DIR).
 * A network without a record keeps its entry.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { readDeployment, REPOSITORY_ROOT } from "./lib/deployment";

/** Hardhat's network names (contracts/hardhat.config.ts) and the names a graph node gives the same chains. */
export const GRAPH_NETWORKS: Readonly<Record<string, string>> = { localhost: "localhost", amoy: "polygon-amoy", polygon: "matic" };

const NETWORKS_FILE = join(REPOSITORY_ROOT, "subgraph", "networks.json");

type Networks = Record<string, { TicketRegistry: { address: string; startBlock: number } }>;

function main(): void {
  const networks = JSON.parse(readFileSync(NETWORKS_FILE, "utf8")) as Networks;
  for (const [hardhatName, graphName] of Object.entries(GRAPH_NETWORKS)) {
    const record = readDeployment(REPOSITORY_ROOT, hardhatName);
    if (!record) {
      console.log(`${graphName}: no deployments record for ${hardhatName}, left as it is`);
      continue;
    }
    networks[graphName] = { TicketRegistry: { address: record.address, startBlock: record.blockNumber } };
    console.log(`${graphName}: ${record.address} from block ${record.blockNumber}`);
  }
  writeFileSync(NETWORKS_FILE, `${JSON.stringify(networks, null, 2)}\n`);
}

main();
