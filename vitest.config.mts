import { defineConfig } from "vitest/config";

/** The chain end-to-end files, run on both node implementations. */
const CHAIN_E2E = "test/chain/**/*.e2e-spec.ts";

export default defineConfig({
  test: {
    environment: "node",
    // A test CA for the local HTTPS callback receivers, trusted through NODE_EXTRA_CA_CERTS: set here,
    // before the workers start, because Node reads it only at process start.
    globalSetup: ["test/support/tls-global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end files each boot the app on a database of their own; two at a time suit two cores
    // (a global limit, shared by the projects below).
    maxWorkers: 2,
    projects: [
      // Everything, the chain end-to-end files on Hardhat's automining node (startTestChain's default).
      {
        extends: true,
        test: {
          name: "hardhat",
          include: ["src/**/*.spec.ts", "client/**/*.spec.ts", "test/**/*.spec.ts", "test/**/*.e2e-spec.ts"],
          exclude: ["test/contracts/**", "node_modules/**"],
        },
      },
      // The chain end-to-end files again on Anvil with a production-like chain (TEST_CHAIN_NODE, read by
      // test/support/test-chain.ts): 2-second blocks, a 45M gas limit, a 30 gwei base fee, chain id 80002.
      // (include and exclude are per project: extending concatenates arrays.) Files that start their chain on Anvil themselves already run there and are not repeated.
      {
        extends: true,
        test: {
          name: "anvil",
          include: [CHAIN_E2E],
          exclude: [
            "test/chain/anvil-node.e2e-spec.ts",
            "test/chain/finality.e2e-spec.ts",
            "test/chain/polygon-fees.e2e-spec.ts",
            "test/chain/remote-signer.e2e-spec.ts",
            "test/chain/transfer-reorg.e2e-spec.ts",
          ],
          env: { TEST_CHAIN_NODE: "anvil" },
        },
      },
    ],
  },
});
