import { type JsonRpcPayload, JsonRpcProvider, type JsonRpcResult } from "ethers";

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * ethers' JSON-RPC provider with its transport swapped for Node's fetch. ethers' own transport
 * grows the response buffer chunk by chunk and decodes UTF-8 in JavaScript, which costs seconds of
 * CPU per minute once receipts carry thousands of logs; fetch streams and parses them natively.
 */
export class JsonRpcOverFetchProvider extends JsonRpcProvider {
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const body = await postJsonRpc<JsonRpcResult | JsonRpcResult[]>(this._getConnection().url, payload, REQUEST_TIMEOUT_MS);
    return Array.isArray(body) ? body : [body];
  }
}

/** One JSON-RPC POST; rejects on a network failure, a timeout or an HTTP error status. */
export async function postJsonRpc<T>(url: string, payload: unknown, timeoutMs: number): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`the JSON-RPC server answered ${response.status} ${response.statusText}`);
  return (await response.json()) as T;
}
