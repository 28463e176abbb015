import { join } from "node:path";

import { ROOT } from "./paths";

/**
 * Anvil, the second node implementation, for tests and `npm start`'s playground. Its binary ships
 * inside the platform package `@foundry-rs/anvil-<platform>-<arch>` (nothing is downloaded). The
 * project depends on the Linux x64 one as an optional dependency, the one the registry it installs
 * from serves (the `@foundry-rs/anvil` wrapper lists every platform's, which npm ci cannot lock
 * where they are not served); on another platform install that platform's package.
 */
export function anvilBinary(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as "x64" | "arm64"];
  if (!arch || (process.platform !== "linux" && process.platform !== "darwin")) throw new Error(`no Anvil package for ${process.platform}-${process.arch}`);
  return join(ROOT, "node_modules", "@foundry-rs", `anvil-${process.platform}-${arch}`, "bin", "anvil");
}

export interface AnvilOptions {
  port: number;
  chainId?: number;
  /** Seconds between blocks; absent: a block per transaction (automine). */
  blockTime?: number;
  gasLimit?: bigint;
  /** The base fee of the first block, in wei. */
  baseFee?: bigint;
  /** A file the chain's state is loaded from at start and written to while it runs and at exit. */
  stateFile?: string;
  /** Seconds between writes of the state file (default 1): at most this much of the chain is lost when Anvil is SIGKILLed. */
  stateIntervalSeconds?: number;
  hostname?: string;
  /** Slots (blocks) per epoch; Anvil's `finalized` block trails the head by two epochs (default 32 slots). */
  slotsInAnEpoch?: number;
  /** Log every request and mined transaction (it runs with --quiet otherwise). */
  verbose?: boolean;
}

/** Anvil's command-line arguments for these options; its development accounts are Hardhat's. */
export function anvilArgs(options: AnvilOptions): string[] {
  const args = ["--host", options.hostname ?? "127.0.0.1", "--port", String(options.port), ...(options.verbose ? [] : ["--quiet"])];
  if (options.chainId !== undefined) args.push("--chain-id", String(options.chainId));
  if (options.blockTime !== undefined) args.push("--block-time", String(options.blockTime));
  if (options.gasLimit !== undefined) args.push("--gas-limit", options.gasLimit.toString());
  if (options.baseFee !== undefined) args.push("--block-base-fee-per-gas", options.baseFee.toString());
  if (options.slotsInAnEpoch !== undefined) args.push("--slots-in-an-epoch", String(options.slotsInAnEpoch));
  // --state loads the file when it exists and dumps to it at exit; the interval bounds what a SIGKILL loses.
  if (options.stateFile !== undefined) args.push("--state", options.stateFile, "--state-interval", String(options.stateIntervalSeconds ?? 1));
  return args;
}
