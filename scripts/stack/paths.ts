import { join } from "node:path";

/** The repository's root: every process of the stack runs there. */
export const ROOT = join(__dirname, "..", "..");
export const HARDHAT_CLI = join(ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
