import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.spec.ts", "test/**/*.spec.ts", "test/**/*.e2e-spec.ts"],
    exclude: ["test/contracts/**", "node_modules/**"],
    environment: "node",
    // A test CA for the local HTTPS callback receivers, trusted through NODE_EXTRA_CA_CERTS: set here,
    // before the workers start, because Node reads it only at process start.
    globalSetup: ["test/support/tls-global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end files each boot the app on a database of their own; two at a time suit two cores.
    maxWorkers: 2,
  },
});
