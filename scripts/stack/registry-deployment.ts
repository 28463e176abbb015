import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { runHardhat } from "./hardhat";

/**
 * Deploys the registry with contracts/scripts/deploy.ts (as ops deploy it) on the node at `rpcUrl`, the
 * `operators` granted, its tokenURI and contractURI at the service's `publicBaseUrl` when given; its
 * address.
 */
export async function deployRegistry(rpcUrl: string, operators: string[], publicBaseUrl?: string): Promise<string> {
  const deployments = mkdtempSync(join(tmpdir(), "ticket-registry-deployment-"));
  try {
    await runHardhat(["run", "scripts/deploy.ts", "--network", "localhost"], {
      env: {
        ...process.env,
        LOCALHOST_RPC_URL: rpcUrl,
        // The deploy script takes REGISTRY_OPERATORS as a comma-separated list.
        REGISTRY_OPERATORS: operators.join(","),
        DEPLOYMENTS_DIR: deployments,
        ...(publicBaseUrl ? { PUBLIC_BASE_URL: publicBaseUrl } : {}),
      },
    });
    return (JSON.parse(readFileSync(join(deployments, "localhost.json"), "utf8")) as { address: string }).address;
  } finally {
    rmSync(deployments, { recursive: true, force: true });
  }
}
