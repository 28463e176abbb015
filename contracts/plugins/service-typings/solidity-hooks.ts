import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";

import type { SolidityHooks } from "hardhat/types/hooks";

/** The one contract the service talks to; its typings are all the service imports. */
const SERVICE_CONTRACT_ARTIFACT = path.join("src", "TicketRegistry.sol", "TicketRegistry.json");
const SERVICE_TYPINGS_DIR = path.join("..", "typechain-types");

const require = createRequire(import.meta.url);
const run = promisify(execFile);

export default async (): Promise<Partial<SolidityHooks>> => ({
  async processArtifactsAfterSuccessfulBuild(context) {
    const { root, artifacts } = context.config.paths;
    const artifact = path.join(artifacts, SERVICE_CONTRACT_ARTIFACT);
    const typechainCli = path.join(path.dirname(require.resolve("typechain/package.json")), "dist", "cli", "cli.js");
    await run(process.execPath, [typechainCli, "--target", "ethers-v6", "--out-dir", path.resolve(root, SERVICE_TYPINGS_DIR), artifact]);
  },
});
