import "@nomicfoundation/hardhat-ethers";
import "@nomicfoundation/hardhat-chai-matchers";
import "@typechain/hardhat";
import "hardhat-gas-reporter";
import "./scripts/tasks";

import { subtask } from "hardhat/config";
import { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } from "hardhat/builtin-tasks/task-names";
import type { HardhatUserConfig, NetworkUserConfig } from "hardhat/types";

/**
 * The compiler comes from the pinned `solc` npm package, so compiling never downloads anything.
 * Bumping the compiler means bumping `solc` in package.json and SOLC_VERSION together.
 */
const SOLC_VERSION = "0.8.37";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD).setAction(async ({ solcVersion }: { solcVersion: string }) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc") as { version(): string };
  const installed = solc.version();
  if (solcVersion !== SOLC_VERSION || !installed.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc ${solcVersion} requested, but the pinned solc package is ${installed}`);
  }
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: installed.replace(".Emscripten.clang", ""),
  };
});

/** Remote networks exist only when their RPC URL is set; the deployer key never lives in the repo. */
function remoteNetwork(rpcUrlVariable: string): Record<string, NetworkUserConfig> {
  const url = process.env[rpcUrlVariable];
  if (!url) return {};
  const deployerKey = process.env.DEPLOYER_PRIVATE_KEY;
  return { [rpcUrlVariable.replace(/_RPC_URL$/, "").toLowerCase()]: { url, accounts: deployerKey ? [deployerKey] : [] } };
}

const config: HardhatUserConfig = {
  solidity: {
    version: SOLC_VERSION,
    settings: {
      optimizer: { enabled: true, runs: 10_000 },
      evmVersion: "cancun",
      viaIR: true,
      // The storage layout too, for its snapshot (test/contracts/storage-layout.test.ts).
      outputSelection: { "*": { "*": ["storageLayout"] } },
    },
  },
  paths: {
    sources: "contracts",
    tests: "test/contracts",
    cache: "cache",
    artifacts: "artifacts",
  },
  networks: {
    hardhat: {},
    localhost: {
      url: process.env.LOCALHOST_RPC_URL ?? "http://127.0.0.1:8545",
      ...(process.env.DEPLOYER_PRIVATE_KEY ? { accounts: [process.env.DEPLOYER_PRIVATE_KEY] } : {}),
    },
    ...remoteNetwork("AMOY_RPC_URL"),
    ...remoteNetwork("POLYGON_RPC_URL"),
    ...remoteNetwork("SEPOLIA_RPC_URL"),
    ...remoteNetwork("MAINNET_RPC_URL"),
  },
  typechain: {
    outDir: "typechain-types",
    target: "ethers-v6",
  },
  gasReporter: {
    enabled: process.env.REPORT_GAS === "true",
    offline: true,
    currency: "USD",
    outputFile: process.env.GAS_REPORT_FILE,
    noColors: Boolean(process.env.GAS_REPORT_FILE),
  },
  mocha: {
    timeout: 120_000,
  },
};

export default config;
