import { Injectable, type OnApplicationShutdown } from "@nestjs/common";
import { type JsonRpcProvider, Network } from "ethers";

import { TicketRegistry__factory } from "../../typechain-types";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { JsonRpcOverFetchProvider, postJsonRpc } from "./json-rpc-over-fetch-provider";
import { type ChainSigner, signersOf } from "./signers";

/** The chain is unreachable or not configured: work waits in the ledger until it is back. */
export class ChainUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainUnavailableError";
  }
}

/**
 * The connection to the chain and the registry's ABI (from the compiled artifacts). The provider
 * is created once the chain answers, with its chain id fixed, so an outage at start costs nothing
 * but waiting.
 */
@Injectable()
export class ChainClient implements OnApplicationShutdown {
  readonly registry = TicketRegistry__factory.createInterface();
  private provider: JsonRpcProvider | null = null;

  constructor(@InjectConfig() private readonly config: AppConfig) {}

  get configured(): boolean {
    return this.config.chain.rpcUrl !== null && this.config.chain.registryAddress !== null;
  }

  get registryAddress(): string {
    if (!this.config.chain.registryAddress) throw new ChainUnavailableError("no registry configured");
    return this.config.chain.registryAddress;
  }

  /** The signers, in shard order: local wallets or a remote signer's accounts; none holds a provider. */
  signers(): ChainSigner[] {
    return signersOf(this.config.chain);
  }

  async connect(): Promise<JsonRpcProvider> {
    if (this.provider) return this.provider;
    const url = this.config.chain.rpcUrl;
    if (!url) throw new ChainUnavailableError("no chain configured (CHAIN_RPC_URL)");
    const chainId = await this.detectChainId(url);
    // No request cache: a receipt or block poll must see the chain as it is now, not 250 ms ago.
    this.provider = new JsonRpcOverFetchProvider(url, Network.from(chainId), { staticNetwork: true, batchMaxCount: 20, cacheTimeout: -1 });
    return this.provider;
  }

  async chainId(): Promise<bigint> {
    return (await (await this.connect()).getNetwork()).chainId;
  }

  /** Last, after the writer's jobs and the watcher have stopped using it. */
  onApplicationShutdown(): void {
    this.provider?.destroy();
  }

  private async detectChainId(url: string): Promise<bigint> {
    try {
      const body = await postJsonRpc<{ result?: string }>(url, { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }, 5_000);
      if (!body.result) throw new Error(`no chain id in ${JSON.stringify(body)}`);
      return BigInt(body.result);
    } catch (error) {
      throw new ChainUnavailableError(`chain at ${url} unreachable: ${(error as Error).message}`);
    }
  }
}
