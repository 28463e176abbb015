import { join } from "node:path";

/** The repository's root: every process of the stack runs there. */
export const ROOT = join(__dirname, "..", "..");
/** The contract workspace (Hardhat 3, ESM): Hardhat commands run there, where its config is. */
export const CONTRACTS_ROOT = join(ROOT, "contracts");
export const HARDHAT_CLI = join(ROOT, "node_modules", "hardhat", "dist", "src", "cli.js");
