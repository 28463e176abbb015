import type { HardhatPlugin } from "hardhat/types/plugins";

/**
 * Writes the service's TypeChain typings of TicketRegistry (`typechain-types/` at the repository's
 * root) after every successful build, so that whatever builds the contract keeps the service's types
 * in step with it.
 *
 * The service is CommonJS while this workspace is ESM: Hardhat's own TypeChain plugin writes this
 * workspace's `types/` with ESM import paths (`./x.js`) that the service's runtime cannot resolve, and
 * it changes TypeChain's output in the process it runs in. So the service's set comes from TypeChain's
 * CLI in a process of its own, with CommonJS-friendly import paths.
 */
const serviceTypings: HardhatPlugin = {
  id: "ticket-registry-service-typings",
  hookHandlers: {
    solidity: () => import("./solidity-hooks.js"),
  },
};

export default serviceTypings;
