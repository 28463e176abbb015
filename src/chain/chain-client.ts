import { Injectable, Logger, type OnApplicationShutdown, Optional } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import { type JsonRpcProvider, Network } from "ethers";
import type { Counter, Gauge } from "prom-client";

import { TicketRegistry__factory } from "../../typechain-types";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { METRICS } from "../metrics/metric-definitions";
import { JsonRpcOverFetchProvider } from "./json-rpc-over-fetch-provider";
import { type RpcEndpointHealth, RpcEndpoints, type RpcFailureReason } from "./rpc-endpoints";
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
 * but waiting. Requests go to the configured JSON-RPC endpoints in order of preference (see
 * RpcEndpoints); each endpoint's health is in `endpointHealth()` and the chain_rpc_* metrics.
 */
@Injectable()
export class ChainClient implements OnApplicationShutdown {
  readonly registry = TicketRegistry__factory.createInterface();
  private readonly logger = new Logger(ChainClient.name);
  private readonly endpoints: RpcEndpoints | null;
  private provider: JsonRpcProvider | null = null;
  private readonly endpointUp = new Map<number, boolean>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @InjectMetric(METRICS.chainRpcUp.name) private readonly upGauge?: Gauge<string>,
    @Optional() @InjectMetric(METRICS.chainRpcFailures.name) private readonly failureCounter?: Counter<string>,
  ) {
    const { rpcUrls, rpcHeaders } = config.chain;
    this.endpoints =
      rpcUrls.length > 0
        ? new RpcEndpoints(rpcUrls, rpcHeaders, { onResult: (index, up, reason, message) => this.observed(index, up, reason, message) })
        : null;
  }

  get configured(): boolean {
    return this.endpoints !== null && this.config.chain.registryAddress !== null;
  }

  get registryAddress(): string {
    if (!this.config.chain.registryAddress) throw new ChainUnavailableError("no registry configured");
    return this.config.chain.registryAddress;
  }

  /** The signers, in shard order: local wallets or a remote signer's accounts; none holds a provider. */
  signers(): ChainSigner[] {
    return signersOf(this.config.chain);
  }

  /** Every endpoint's last known health, URLs redacted; empty without a chain. */
  endpointHealth(): RpcEndpointHealth[] {
    return this.endpoints?.health() ?? [];
  }

  async connect(): Promise<JsonRpcProvider> {
    if (this.provider) return this.provider;
    const endpoints = this.endpoints;
    if (!endpoints) throw new ChainUnavailableError("no chain configured (CHAIN_RPC_URL or CHAIN_RPC_URLS)");
    const chainId = await this.detectChainId(endpoints);
    // A plain network, never Network.from(chainId): ethers' named networks carry plugins that fetch
    // fees from third parties (chain 137's gas station). Fees come from the configured nodes only.
    // No request cache: a receipt or block poll must see the chain as it is now, not 250 ms ago.
    this.provider = new JsonRpcOverFetchProvider(endpoints, new Network(`chain-${chainId}`, chainId), {
      staticNetwork: true,
      batchMaxCount: 20,
      cacheTimeout: -1,
    });
    return this.provider;
  }

  async chainId(): Promise<bigint> {
    return (await (await this.connect()).getNetwork()).chainId;
  }

  /** Last, after the writer's jobs and the watcher have stopped using it. */
  onApplicationShutdown(): void {
    this.provider?.destroy();
  }

  private async detectChainId(endpoints: RpcEndpoints): Promise<bigint> {
    try {
      const body = await endpoints.post<{ result?: string }>({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }, 5_000);
      if (!body.result) throw new Error(`no chain id in ${JSON.stringify(body)}`);
      return BigInt(body.result);
    } catch (error) {
      throw new ChainUnavailableError(`chain at ${endpoints.primaryLabel} unreachable: ${(error as Error).message}`);
    }
  }

  /** Metrics for every verdict; a log line only when an endpoint goes down or comes back. */
  private observed(index: number, up: boolean, reason: RpcFailureReason | null, message: string | null): void {
    const endpoint = String(index);
    this.upGauge?.set({ endpoint }, up ? 1 : 0);
    if (reason) this.failureCounter?.inc({ endpoint, reason });
    const before = this.endpointUp.get(index);
    this.endpointUp.set(index, up);
    const label = this.endpoints?.health()[index]?.url ?? "";
    const others = (this.endpoints?.size ?? 1) > 1 ? "requests go to the next endpoint meanwhile" : "requests fail meanwhile";
    if (!up && before !== false) this.logger.warn(`JSON-RPC endpoint ${index} (${label}) failed: ${message}; ${others}`);
    if (up && before === false) this.logger.log(`JSON-RPC endpoint ${index} (${label}) answers again`);
  }
}
