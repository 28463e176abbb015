import { defineConfig } from "vitest/config";

/** The chain end-to-end files. */
const CHAIN_E2E = "test/chain/**/*.e2e-spec.ts";

/**
 * The chain files whose subject is how a block-producing node behaves (block gas, a production node's
 * limits and refusals, fees below the base fee, reorgs and lost blocks, the whole flow in 2-second
 * blocks, a wallet reading the token): they run on Anvil's production-like chain. The others test the
 * service (crashes, outages, restored ledgers, signers, lost answers) and run on Hardhat's automining
 * node, where they take half the time. Every file on both nodes doubled the chain tier's time for
 * little: TEST_CHAIN_MATRIX=both (`npm run test:chain:matrix`) still runs that whole matrix.
 */
const ON_ANVIL = [
  "test/chain/actions-confirmed.e2e-spec.ts",
  "test/chain/batch-gas.e2e-spec.ts",
  "test/chain/batch-limits.e2e-spec.ts",
  "test/chain/fair-share.e2e-spec.ts",
  "test/chain/node-lost-blocks.e2e-spec.ts",
  "test/chain/node-refusals.e2e-spec.ts",
  "test/chain/pipeline.e2e-spec.ts",
  "test/chain/reorg.e2e-spec.ts",
  "test/chain/stuck-transaction.e2e-spec.ts",
  "test/chain/tokens.e2e-spec.ts",
];

/** Files that start their own node of a given kind: they run once, in chain-hardhat, whatever the matrix. */
const OWN_NODE_KIND = [
  "test/chain/anvil-node.e2e-spec.ts",
  "test/chain/finality.e2e-spec.ts",
  "test/chain/polygon-fees.e2e-spec.ts",
  "test/chain/remote-signer.e2e-spec.ts",
  "test/chain/transfer-reorg.e2e-spec.ts",
];

const WHOLE_MATRIX = process.env.TEST_CHAIN_MATRIX === "both";

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
    // End-to-end files each boot the app on a database of their own, and mostly wait on blocks, nodes
    // and processes: three at a time keep two cores busy without starving the timing they test (a
    // global limit, shared by the projects below).
    maxWorkers: 3,
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
      // The app with a real chain, on Hardhat's automining node (startTestChain's default): the chain files
      // but those ON_ANVIL (all of them with TEST_CHAIN_MATRIX=both); the public ticket page in Chromium;
      // the writer's property tests against a scripted node.
      {
        extends: true,
        test: {
          name: "chain-hardhat",
          include: [CHAIN_E2E, "test/verify/**/*.e2e-spec.ts", "test/writer/**/*.e2e-spec.ts"],
          exclude: WHOLE_MATRIX ? [] : ON_ANVIL,
          globalSetup: [DATABASE, SHARED_NODES],
          setupFiles: [FILE_LEAKS],
        },
      },
      // The chain files above whose subject is the node, on Anvil with a production-like chain
      // (TEST_CHAIN_NODE, read by test/support/test-chain.ts): 2-second blocks, a 45M gas limit, a 30 gwei
      // base fee, chain id 80002; with TEST_CHAIN_MATRIX=both, every chain file but those that start
      // their own node of a given kind.
      {
        extends: true,
        test: {
          name: "chain-anvil",
          include: WHOLE_MATRIX ? [CHAIN_E2E] : ON_ANVIL,
          exclude: OWN_NODE_KIND,
          env: { TEST_CHAIN_NODE: "anvil" },
          globalSetup: [DATABASE, SHARED_NODES],
          setupFiles: [FILE_LEAKS],
        },
      },
    ],
  },
});
