import type { OwnedProcess } from "./owned-process";

export const rpcUrlOf = (port: number) => `http://127.0.0.1:${port}`;

/** A local chain that could not be brought up (the node exited, or never answered). */
export class ChainStartError extends Error {
  override name = "ChainStartError";
}

/** One JSON-RPC call; an error answer (or none within `timeoutMs`) throws. */
export async function rpcCall<T>(url: string, method: string, params: unknown[] = [], timeoutMs = 30_000): Promise<T> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(timeoutMs) });
  const answer = (await response.json()) as { result?: T; error?: { message: string } };
  if (answer.error || answer.result === undefined) throw new Error(`${method}: ${answer.error?.message ?? "no result"}`);
  return answer.result;
}

/** Whether something answers eth_chainId at `url` (a listener that holds the request unanswered does not). */
export async function answersRpc(url: string): Promise<boolean> {
  return rpcCall<string>(url, "eth_chainId", [], 2_000).then(
    () => true,
    () => false,
  );
}

/** Waits until the node answers eth_chainId; `exitHint` explains an early exit of `node`. */
export async function waitForRpc(url: string, node: OwnedProcess, exitHint = "", timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!node.running()) throw new ChainStartError(`the chain node exited (${node.child.exitCode ?? node.child.signalCode})${exitHint}`);
    if (await answersRpc(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new ChainStartError(`the chain node did not answer on ${url} within ${timeoutMs / 1000} s`);
}
