import { join } from "node:path";

import { JsonRpcProvider, Network, Wallet } from "ethers";

import { deployRegistry, EMBEDDED_SIGNER_KEY, hardhatNodeArgs, rpcUrlOf, waitForRpc } from "../../scripts/lib/embedded-chain";
import { freePort } from "../../test/support/test-chain";
import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";
import { NODE_GUARD_ARGS, type OwnedProcess, spawnOwned } from "./owned-process";

/** A local Hardhat node with the registry deployed as `npm start` does it, its signer an operator. */
export interface ChainNode {
  url: string;
  process: OwnedProcess;
  registryAddress: string;
  signerKey: string;
  provider: JsonRpcProvider;
  registry: TicketRegistry;
  /** The service's chain settings. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

export async function startChainNode(logDir: string): Promise<ChainNode> {
  const port = await freePort();
  const url = rpcUrlOf(port);
  const node = spawnOwned("chain", process.execPath, [...NODE_GUARD_ARGS, ...hardhatNodeArgs(port)], process.env, join(logDir, "chain.log"));
  try {
    await waitForRpc(url, node.child);
    const registryAddress = await deployRegistry(url, new Wallet(EMBEDDED_SIGNER_KEY).address);
    // No response cache: ethers would share identical calls made within 250 ms.
    const provider = new JsonRpcProvider(url, new Network("bench", 31337n), { staticNetwork: true, cacheTimeout: -1 });
    return {
      url,
      process: node,
      registryAddress,
      signerKey: EMBEDDED_SIGNER_KEY,
      provider,
      registry: TicketRegistry__factory.connect(registryAddress, provider),
      env: { CHAIN_RPC_URL: url, REGISTRY_ADDRESS: registryAddress, SIGNER_PRIVATE_KEYS: EMBEDDED_SIGNER_KEY },
      stop: async () => {
        provider.destroy();
        await node.stop("SIGKILL");
      },
    };
  } catch (error) {
    await node.stop("SIGKILL");
    throw error;
  }
}
