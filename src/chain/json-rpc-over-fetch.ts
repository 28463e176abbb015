import { type JsonRpcPayload, JsonRpcProvider, type JsonRpcResult } from "ethers";

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * ethers' JSON-RPC provider with its transport swapped for Node's fetch. ethers' own transport
 * grows the response buffer chunk by chunk and decodes UTF-8 in JavaScript, which costs seconds of
 * CPU per minute once receipts carry thousands of logs; fetch streams and parses them natively.
 */
export class JsonRpcOverFetchProvider extends JsonRpcProvider {
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const url = this._getConnection().url;
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`the JSON-RPC server answered ${response.status} ${response.statusText}`);
    const body = (await response.json()) as JsonRpcResult | JsonRpcResult[];
    return Array.isArray(body) ? body : [body];
  }
}
