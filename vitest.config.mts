import { defineConfig } from "vitest/config";

/** The chain end-to-end files, run on both node implementations. */
const CHAIN_E2E = "test/chain/**/*.e2e-spec.ts";

/** The migrations applied once into a template database that each file's database is copied from. */
const DATABASE = "test/support/database-global-setup.ts";
/** One node per worker for the chain files that need no node of their own (useChainApp's default). */
const SHARED_NODES = "test/support/shared-nodes-global-setup.ts";
/** Fails an end-to-end file that leaves an app or a child process running into the next file of its worker. */
const FILE_LEAKS = "test/support/file-leaks.ts";

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
    // A worker runs its files one after the other in one module graph, instead of importing Nest,
    // TypeORM, ethers and Bull again for each file (seconds per file). What a file starts it stops
    // (file-leaks.ts checks the apps and processes); nothing may hang on module state between files.
    isolate: false,
    // The tiers (docs/testing.md). include, exclude and globalSetup are per project: extending
    // concatenates arrays.
    projects: [
      // Nothing but Node: no database, Redis, chain or app.
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.spec.ts", "client/**/*.spec.ts", "test/**/*.spec.ts"],
          exclude: ["test/contracts/**", "node_modules/**"],
        },
      },
      // Each SQL class against a migrated database of its own.
      {
        extends: true,
        test: { name: "stores", include: ["test/stores/**/*.e2e-spec.ts"], globalSetup: [DATABASE] },
      },
      // The real app over HTTP on a database of its own; the files that need a chain, on Hardhat's node;
      // the stack library's nodes and databases.
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/{api,callbacks,cli,client,docs,ops,stack}/**/*.e2e-spec.ts"],
          globalSetup: [DATABASE, SHARED_NODES],
          setupFiles: [FILE_LEAKS],
        },
      },
      // The app with a real chain, on Hardhat's automining node (startTestChain's default); the public
      // ticket page in Chromium; the writer's property tests against a scripted node.
      {
        extends: true,
        test: {
          name: "chain-hardhat",
          include: [CHAIN_E2E, "test/verify/**/*.e2e-spec.ts", "test/writer/**/*.e2e-spec.ts"],
          globalSetup: [DATABASE, SHARED_NODES],
          setupFiles: [FILE_LEAKS],
        },
      },
      // The chain end-to-end files again on Anvil with a production-like chain (TEST_CHAIN_NODE, read by
      // test/support/test-chain.ts): 2-second blocks, a 45M gas limit, a 30 gwei base fee, chain id 80002.
      // Files that start their chain on Anvil themselves already run there and are not repeated.
      {
        extends: true,
        test: {
          name: "chain-anvil",
          include: [CHAIN_E2E],
          exclude: [
            "test/chain/anvil-node.e2e-spec.ts",
            "test/chain/finality.e2e-spec.ts",
            "test/chain/polygon-fees.e2e-spec.ts",
            "test/chain/remote-signer.e2e-spec.ts",
            "test/chain/transfer-reorg.e2e-spec.ts",
          ],
          env: { TEST_CHAIN_NODE: "anvil" },
          globalSetup: [DATABASE, SHARED_NODES],
          setupFiles: [FILE_LEAKS],
        },
      },
    ],
  },
});
