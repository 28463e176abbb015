/**
 * The compose stack's chain: a Hardhat JSON-RPC node with the registry deployed into it by
 * `contracts/scripts/deploy.ts`, the way ops deploy it anywhere else. `docker/chain-entrypoint.ts` runs it in
 * the chain container; the compose test runs it on a free port to prove what the stack gets.
 *
 * Environment (everything else, REGISTRY_OPERATORS included, goes to the deploy script as is):
 *   CHAIN_NODE_HOSTNAME  interface the node listens on (default 0.0.0.0: reachable from the other containers)
 *   CHAIN_NODE_PORT      its port (default 8545)
 *   REGISTRY_ADDRESS     when set, the address the deployment must produce; anything else stops the node,
 *                        so the services are never pointed at an address that holds no registry
 *   DEPLOYMENTS_DIR      where the deployment record goes (default deployments/); the record is written
 *                        last, so its presence means "deployed and operators granted"
 */
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

import { getAddress } from "ethers";

import { startChainNode as startNode } from "../scripts/stack/chain-node";
import { runHardhat } from "../scripts/stack/hardhat";
import { ChainStartError } from "../scripts/stack/json-rpc";
import { ROOT } from "../scripts/stack/paths";

const DEPLOY_TIMEOUT_MS = 180_000;

type Env = Record<string, string | undefined>;

export interface ChainNodeSettings {
  hostname: string;
  port: number;
  expectedRegistry: string | null;
  deploymentFile: string;
}

export interface ChainNode {
  /** The node's JSON-RPC URL as seen from this machine. */
  url: string;
  registryAddress: string;
  deploymentFile: string;
  /** Resolves with the node's exit code (or 1 when a signal ended it). */
  exited: Promise<number>;
  stop: () => Promise<void>;
}

export class ChainNodeError extends Error {
  override name = "ChainNodeError";
}

export function chainNodeSettings(env: Env): ChainNodeSettings {
  const port = Number(env.CHAIN_NODE_PORT || "8545");
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new ChainNodeError(`CHAIN_NODE_PORT must be a port number, got "${env.CHAIN_NODE_PORT}"`);
  return {
    hostname: env.CHAIN_NODE_HOSTNAME || "0.0.0.0",
    port,
    expectedRegistry: env.REGISTRY_ADDRESS ? checksummed(env.REGISTRY_ADDRESS, "REGISTRY_ADDRESS") : null,
    deploymentFile: join(resolve(ROOT, env.DEPLOYMENTS_DIR || "deployments"), "localhost.json"),
  };
}

/** Starts the node, deploys the registry and checks its address; `log` decides where their output goes. */
export async function startChainNode(env: Env, log: "inherit" | "ignore" = "ignore"): Promise<ChainNode> {
  const settings = chainNodeSettings(env);
  // A record left by an earlier run of this container would announce a registry the new, empty chain lacks.
  rmSync(settings.deploymentFile, { force: true });
  const node = await startNode({ kind: "hardhat", hostname: settings.hostname, port: settings.port, env, output: log }).catch((error: unknown) => {
    throw error instanceof ChainStartError ? new ChainNodeError(error.message) : error;
  });
  const exited = node.process.exited.then(({ code }) => code ?? 1);
  const stop = async () => void (await node.stop("SIGTERM", 5_000));
  try {
    await deploy(env, node.url, log);
    const registryAddress = readRecordedRegistry(settings);
    return { url: node.url, registryAddress, deploymentFile: settings.deploymentFile, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function deploy(env: Env, url: string, log: "inherit" | "ignore"): Promise<void> {
  const deployEnv: Env = { ...env, LOCALHOST_RPC_URL: url };
  // A deployer key in the environment would make Hardhat sign with it instead of the node's account #0.
  delete deployEnv.DEPLOYER_PRIVATE_KEY;
  // Run in contracts/ (runHardhat's working directory); a relative DEPLOYMENTS_DIR is still taken from the root.
  await runHardhat(["run", "scripts/deploy.ts", "--network", "localhost"], {
    env: deployEnv,
    output: log === "inherit" ? "inherit" : "errors",
    timeoutMs: DEPLOY_TIMEOUT_MS,
  }).catch((error: unknown) => {
    throw new ChainNodeError(`contracts/scripts/deploy.ts failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** The address in the deployment record, refused when it is not the one the stack expects. */
export function readRecordedRegistry(settings: ChainNodeSettings): string {
  const record = JSON.parse(readFileSync(settings.deploymentFile, "utf8")) as { address: string };
  const address = checksummed(record.address, settings.deploymentFile);
  if (settings.expectedRegistry !== null && address !== settings.expectedRegistry) {
    throw new ChainNodeError(
      `the registry was deployed at ${address}, not at REGISTRY_ADDRESS ${settings.expectedRegistry}: fix REGISTRY_ADDRESS everywhere it is set`,
    );
  }
  return address;
}

function checksummed(value: string, source: string): string {
  try {
    return getAddress(value);
  } catch {
    throw new ChainNodeError(`${source}: "${value}" is not an address`);
  }
}
