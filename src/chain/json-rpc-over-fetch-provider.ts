import { type JsonRpcApiProviderOptions, type JsonRpcPayload, JsonRpcProvider, type JsonRpcResult, type Network } from "ethers";

import { RpcEndpoints } from "./rpc-endpoints";

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * ethers' JSON-RPC provider with its transport swapped for Node's fetch, over one or several
 * endpoints (see RpcEndpoints). ethers' own transport grows the response buffer chunk by chunk and
 * decodes UTF-8 in JavaScript, which costs seconds of CPU per minute once receipts carry thousands
 * of logs; fetch streams and parses them natively. Give it a plain `new Network(name, chainId)`:
 * ethers' named networks carry plugins that fetch fees from third parties (chain 137's gas station).
 */
export class JsonRpcOverFetchProvider extends JsonRpcProvider {
  readonly endpoints: RpcEndpoints;

  constructor(endpoints: RpcEndpoints | string, network: Network, options?: JsonRpcApiProviderOptions) {
    const pool = typeof endpoints === "string" ? new RpcEndpoints([endpoints]) : endpoints;
    super(pool.primaryUrl, network, options);
    this.endpoints = pool;
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const body = await this.endpoints.post<JsonRpcResult | JsonRpcResult[]>(payload, REQUEST_TIMEOUT_MS);
    return Array.isArray(body) ? body : [body];
  }
}
