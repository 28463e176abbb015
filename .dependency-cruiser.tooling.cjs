// @ts-check
/**
 * Imports outside src/ (`npm run lint:deps`, after src/'s layering in .dependency-cruiser.cjs): the
 * benchmarks, `npm start` and the other scripts, and the chain image never import test/. What they
 * share with the tests (free ports, chain nodes, service processes, proxies, the local CA) is the
 * stack library, scripts/stack, which stands on its own: it imports nothing of the code that uses it.
 * None of them imports the contract workspace (contracts/, ESM, Hardhat 3).
 */

const srcConfig = require("./.dependency-cruiser.cjs");

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "tooling-not-to-test",
      severity: "error",
      comment: "bench/, scripts/ and docker/ never import test/: what they share with the tests lives in scripts/stack.",
      from: { path: "^(bench|scripts|docker)/" },
      to: { path: "^test/" },
    },
    {
      name: "stack-library-stands-alone",
      severity: "error",
      comment:
        "scripts/stack is the bottom of the tooling: it imports none of src/ (it runs the service as a process), test/, bench/, docker/ or the rest of scripts/.",
      from: { path: "^scripts/stack/" },
      to: { path: "^(src|test|bench|docker)/|^scripts/(?!stack/)" },
    },
    {
      name: "tooling-not-into-contract-workspace",
      severity: "error",
      comment:
        "The contract workspace (contracts/) is an ES module package run by Hardhat 3: CommonJS code cannot load it. Tooling runs its scripts through Hardhat (scripts/stack/hardhat.ts) and reads what it builds (artifacts, typechain-types/).",
      from: { path: "^(bench|scripts|docker)/" },
      to: { path: "^contracts/" },
    },
  ],
  options: {
    // src/'s resolution and analysis settings; only what is not cruised further differs (bench/ is cruised here).
    ...srcConfig.options,
    doNotFollow: { path: ["node_modules", "^src/", "^test/", "^typechain-types/"] },
  },
};
