import { createRequire } from "node:module";

import hardhatToolboxMochaEthers from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { configVariable, defineConfig } from "hardhat/config";
import type { NetworkUserConfig } from "hardhat/types/config";

import serviceTypings from "./plugins/service-typings/index.js";
import { registryTasks } from "./tasks/index.js";

/**
 * The compiler is the pinned `solc` npm package (its WebAssembly build), so compiling never downloads
 * anything. Bumping the compiler means bumping `solc` in package.json and SOLC_VERSION together:
 * Hardhat refuses a compiler whose version is not the one named here.
 */
const SOLC_VERSION = "0.8.37";
const require = createRequire(import.meta.url);
const SOLC_PATH = require.resolve("solc/soljson.js");

const COMPILER = {
  version: SOLC_VERSION,
  path: SOLC_PATH,
  settings: {
    optimizer: { enabled: true, runs: 100_000 },
    evmVersion: "cancun",
    viaIR: true,
    // The storage layout too, for its snapshot (test/storage-layout.test.ts).
    outputSelection: { "*": { "*": ["storageLayout"] } },
  },
};

/** Remote networks exist only when their RPC URL is set; the deployer key never lives in the repo. */
function remoteNetwork(rpcUrlVariable: string): Record<string, NetworkUserConfig> {
  const url = process.env[rpcUrlVariable];
  if (!url) return {};
  const accounts = process.env.DEPLOYER_PRIVATE_KEY ? [configVariable("DEPLOYER_PRIVATE_KEY")] : [];
  return { [rpcUrlVariable.replace(/_RPC_URL$/, "").toLowerCase()]: { type: "http", url, accounts } };
}

/** The chains of the remote networks above, by id, with the names Hardhat's own descriptors give them. */
const REMOTE_CHAINS: Record<number, string> = { 1: "Ethereum", 11155111: "Sepolia", 137: "Polygon", 80002: "Polygon Amoy" };

/**
 * Etherscan v2 serves every chain from one API. ETHERSCAN_API_URL puts another one of the same API in its
 * place for those chains (an Etherscan-compatible explorer, or the tests' stand-in); unset, Hardhat's
 * descriptors apply.
 */
function etherscanApiOverride(): Record<number, { name: string; blockExplorers: { etherscan: { apiUrl: string } } }> {
  const apiUrl = process.env.ETHERSCAN_API_URL;
  if (!apiUrl) return {};
  return Object.fromEntries(Object.entries(REMOTE_CHAINS).map(([chainId, name]) => [chainId, { name, blockExplorers: { etherscan: { apiUrl } } }]));
}

export default defineConfig({
  plugins: [hardhatToolboxMochaEthers, serviceTypings],
  tasks: registryTasks,
  solidity: {
    // The production profile, the one `hardhat verify` (and registry:verify) builds the sources it submits
    // with, compiles as the default one does: left out, it would take only the version from the default and
    // Hardhat's own optimizer settings, and the explorers would rebuild other bytecode.
    profiles: { default: COMPILER, production: COMPILER },
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
  chainDescriptors: etherscanApiOverride(),
  // Where `registry:verify` (and `hardhat verify`) submit the sources: Sourcify, and Etherscan v2 with the
  // key of the ETHERSCAN_API_KEY configuration variable (environment or `hardhat keystore set`), read only
  // when a verification runs. SOURCIFY_API_URL points at another Sourcify server (default sourcify.dev's).
  verify: {
    etherscan: { apiKey: configVariable("ETHERSCAN_API_KEY") },
    sourcify: process.env.SOURCIFY_API_URL ? { apiUrl: process.env.SOURCIFY_API_URL } : {},
    blockscout: { enabled: false },
  },
  typechain: {
    outDir: "types",
  },
  test: {
    mocha: { timeout: 120_000 },
  },
});
