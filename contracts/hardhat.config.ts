import { createRequire } from "node:module";

import hardhatToolboxMochaEthers from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { configVariable, defineConfig } from "hardhat/config";
import type { NetworkUserConfig } from "hardhat/types/config";

import serviceTypings from "./plugins/service-typings/index.js";

/**
 * The compiler is the pinned `solc` npm package (its WebAssembly build), so compiling never downloads
 * anything. Bumping the compiler means bumping `solc` in package.json and SOLC_VERSION together:
 * Hardhat refuses a compiler whose version is not the one named here.
 */
const SOLC_VERSION = "0.8.37";
const require = createRequire(import.meta.url);
const SOLC_PATH = require.resolve("solc/soljson.js");

/** Remote networks exist only when their RPC URL is set; the deployer key never lives in the repo. */
function remoteNetwork(rpcUrlVariable: string): Record<string, NetworkUserConfig> {
  const url = process.env[rpcUrlVariable];
  if (!url) return {};
  const accounts = process.env.DEPLOYER_PRIVATE_KEY ? [configVariable("DEPLOYER_PRIVATE_KEY")] : [];
  return { [rpcUrlVariable.replace(/_RPC_URL$/, "").toLowerCase()]: { type: "http", url, accounts } };
}

export default defineConfig({
  plugins: [hardhatToolboxMochaEthers, serviceTypings],
  solidity: {
    version: SOLC_VERSION,
    path: SOLC_PATH,
    settings: {
      optimizer: { enabled: true, runs: 10_000 },
      evmVersion: "cancun",
      viaIR: true,
      // The storage layout too, for its snapshot (test/storage-layout.test.ts).
      outputSelection: { "*": { "*": ["storageLayout"] } },
    },
  },
  paths: {
    sources: "src",
    tests: { mocha: "test" },
    cache: "cache",
    artifacts: "artifacts",
  },
  networks: {
    localhost: {
      type: "http",
      url: process.env.LOCALHOST_RPC_URL ?? "http://127.0.0.1:8545",
      ...(process.env.DEPLOYER_PRIVATE_KEY ? { accounts: [configVariable("DEPLOYER_PRIVATE_KEY")] } : {}),
    },
    ...remoteNetwork("AMOY_RPC_URL"),
    ...remoteNetwork("POLYGON_RPC_URL"),
    ...remoteNetwork("SEPOLIA_RPC_URL"),
    ...remoteNetwork("MAINNET_RPC_URL"),
  },
  typechain: {
    outDir: "types",
  },
  test: {
    mocha: { timeout: 120_000 },
  },
});
