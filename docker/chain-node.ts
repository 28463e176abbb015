/**
 * The compose stack's chain: a Hardhat JSON-RPC node with the registry deployed into it by
 * `scripts/deploy.ts`, the way ops deploy it anywhere else. `docker/chain-entrypoint.ts` runs it in
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
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

import { getAddress } from "ethers";

import { ChainStartError, HARDHAT_CLI, hardhatNodeArgs, ROOT, waitForRpc } from "../scripts/lib/embedded-chain";

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
  const node = spawn(process.execPath, hardhatNodeArgs(settings.port, settings.hostname), {
    cwd: ROOT,
    env,
    stdio: ["ignore", log, log],
  });
  const exited = new Promise<number>((done) => node.once("exit", (code) => done(code ?? 1)));
  const stop = () => stopNode(node, exited);
  try {
    const url = `http://127.0.0.1:${settings.port}`;
    await waitForRpc(url, node).catch((error: unknown) => {
      throw error instanceof ChainStartError ? new ChainNodeError(error.message) : error;
    });
    await deploy(env, url, log);
    const registryAddress = readRecordedRegistry(settings);
    return { url, registryAddress, deploymentFile: settings.deploymentFile, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function deploy(env: Env, url: string, log: "inherit" | "ignore"): Promise<void> {
  const deployEnv: Env = { ...env, LOCALHOST_RPC_URL: url };
  // A deployer key in the environment would make Hardhat sign with it instead of the node's account #0.
  delete deployEnv.DEPLOYER_PRIVATE_KEY;
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      [HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"],
      { cwd: ROOT, env: deployEnv, timeout: DEPLOY_TIMEOUT_MS },
      (error, _stdout, stderr) => (error ? fail(new ChainNodeError(`scripts/deploy.ts failed: ${error.message}\n${stderr}`)) : done()),
    );
    if (log === "inherit") {
      child.stdout?.pipe(process.stdout);
      child.stderr?.pipe(process.stderr);
    }
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

async function stopNode(node: ChildProcess, exited: Promise<number>): Promise<void> {
  if (node.exitCode !== null || node.signalCode !== null) return;
  node.kill("SIGTERM");
  const timer = setTimeout(() => node.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
