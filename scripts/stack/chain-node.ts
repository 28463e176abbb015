import { type AnvilOptions, anvilArgs, anvilBinary } from "./anvil";
import { freePort } from "./ports";
import { hardhatNodeArgs } from "./hardhat";
import { rpcUrlOf, waitForRpc } from "./json-rpc";
import { type Exit, NODE_LIFELINE_ARGS, type OwnedProcess, type ProcessOutput, spawnOwned, underShellLifeline } from "./owned-process";

export type ChainNodeKind = "hardhat" | "anvil";
export const CHAIN_NODE_KINDS: readonly ChainNodeKind[] = ["hardhat", "anvil"];

/** Anvil and its chain's settings (chain id, block time, gas limit, base fee, state file). */
export type AnvilChain = { kind: "anvil" } & Omit<AnvilOptions, "port" | "hostname">;

/** Which node implementation runs the chain: Hardhat's automining node, or Anvil with its settings. */
export type ChainNodeSpec = { kind: "hardhat" } | AnvilChain;

/** The chain id of Hardhat's node, and Anvil's unless told otherwise. */
export const DEV_CHAIN_ID = 31337;

/**
 * The production-like chain Anvil runs for the tests' and the benchmarks' Anvil runs: Polygon Amoy's
 * chain id, 2-second blocks, a 45,000,000 gas limit, a 30 gwei base fee.
 */
export const PRODUCTION_LIKE_ANVIL: AnvilChain = { kind: "anvil", chainId: 80002, blockTime: 2, gasLimit: 45_000_000n, baseFee: 30_000_000_000n };

export type StartChainNodeOptions = ChainNodeSpec & {
  /** Default: a free port. */
  port?: number;
  /** The interface it listens on (default 127.0.0.1). */
  hostname?: string;
  output?: ProcessOutput;
  /** Its whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** What it gets when this process exits while it still runs (default SIGKILL; SIGTERM lets Anvil write its state). */
  signalAtExit?: NodeJS.Signals;
  /** How it is named in messages (default "chain"). */
  name?: string;
  /** Added to the error when it exits before it answers (where its log is, say). */
  exitHint?: string;
};

/** A local JSON-RPC node in a child process, answering on `url`. */
export interface ChainNode {
  spec: ChainNodeSpec;
  port: number;
  url: string;
  chainId: number;
  process: OwnedProcess;
  /** Signals its process group (SIGTERM unless told) and waits for its exit, SIGKILL after `graceMs`. */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<Exit>;
}

export function chainIdOf(spec: ChainNodeSpec): number {
  return spec.kind === "anvil" ? (spec.chainId ?? DEV_CHAIN_ID) : DEV_CHAIN_ID;
}

/**
 * Starts the node (Hardhat's or Anvil, each under a lifeline that stops it when this process goes)
 * and resolves once it answers JSON-RPC; a node that never answers is killed and the start fails
 * with a ChainStartError.
 */
export async function startChainNode(options: StartChainNodeOptions): Promise<ChainNode> {
  const { port: askedPort, hostname, output, env, signalAtExit, name = "chain", exitHint = "", ...spec } = options;
  const port = askedPort ?? (await freePort());
  const url = rpcUrlOf(port);
  const command =
    spec.kind === "hardhat"
      ? { command: process.execPath, args: [...NODE_LIFELINE_ARGS, ...hardhatNodeArgs(port, hostname)] }
      : underShellLifeline(anvilBinary(), anvilArgs({ ...spec, port, hostname }));
  const node = spawnOwned({ name, ...command, env, output, signalAtExit });
  try {
    await waitForRpc(url, node, exitHint);
  } catch (error) {
    await node.stop("SIGKILL");
    throw error;
  }
  return { spec, port, url, chainId: chainIdOf(spec), process: node, stop: (signal, graceMs) => node.stop(signal, graceMs) };
}
