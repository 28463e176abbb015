import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.spec.ts", "test/**/*.spec.ts", "test/**/*.e2e-spec.ts"],
    exclude: ["test/contracts/**", "node_modules/**"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end files each boot the app on a database of their own; two at a time suit two cores.
    maxWorkers: 2,
  },
});
