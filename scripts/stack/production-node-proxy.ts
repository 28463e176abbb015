import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A JSON-RPC proxy that puts a production node's rules in front of a development node (Hardhat or
 * Anvil accept what geth and bor refuse). By default it refuses, as geth and bor do, a raw
 * transaction over 128 KiB with "oversized data". Tests add refusals of their own: the exact
 * messages geth/bor answer (`already known`, `nonce too low`, `replacement transaction
 * underpriced`, ...), an HTTP status such as 429, a delay, or a dropped request.
 */
export interface ProductionNodeProxy {
  url: string;
  /**
   * Every eth_sendRawTransaction the proxy saw, with what it answered (one dropped before forwarding
   * is not listed; one whose answer is dropped after forwarding is, as the node's own answer).
   */
  readonly sent: { raw: string; bytes: number; refusal: string | null }[];
  /**
   * Refuses the raw transactions `when` picks with `message` (JSON-RPC error -32000) until the
   * returned function is called. With `forward: true` the transaction reaches the node all the same
   * and only the answer is the refusal (a node that has it already answers `already known`).
   */
  refuseTransactions(message: string, when?: (raw: string, bytes: number) => boolean, options?: { forward?: boolean }): () => void;
  /** Answers calls of `method` (or every call) with this HTTP status until the returned function is called. */
  answerStatus(status: number, method?: string): () => void;
  /**
   * Drops every request carrying a call of `method` (a batch with one in it: the whole batch) until
   * the returned function is called: the proxy closes the connection without an answer, as a network
   * that loses it does. With `afterForwarding: true` the node gets the request and answers, and only
   * the answer is lost (a transaction the node holds, mines even, while its sender saw an error).
   */
  dropCalls(method: string, options?: { afterForwarding?: boolean }): () => void;
  /**
   * Holds every request carrying a call of `method` `ms` milliseconds before forwarding it until the
   * returned function is called (requests already held are not released early). With
   * `afterForwarding: true` the node gets it at once and only its answer comes `ms` late.
   */
  delayCalls(method: string, ms: number, options?: { afterForwarding?: boolean }): () => void;
  /** How many requests of `method` reached the proxy. */
  count(method: string): number;
  /** The calls that reached the proxy since its start or the last `resetCounts()`. */
  counted(): RpcCalls;
  resetCounts(): void;
  close(): Promise<void>;
}

/** The JSON-RPC calls a proxy saw: each call of a batch request counts. */
export interface RpcCalls {
  /** HTTP requests (a batch is one). */
  requests: number;
  /** JSON-RPC calls (a batch of 20 is 20). */
  calls: number;
  /** Calls by method, the most frequent first. */
  byMethod: [string, number][];
}

/** geth's and bor's txMaxSize: 4 slots of 32 KiB. */
export const NODE_MAX_TRANSACTION_BYTES = 131_072;

interface RpcRequest {
  id: unknown;
  method: string;
  params?: unknown[];
}

export async function startProductionNodeProxy(upstream: string): Promise<ProductionNodeProxy> {
  const sent: ProductionNodeProxy["sent"] = [];
  let counts = new Map<string, number>();
  let httpRequests = 0;
  const refusals = new Set<{ message: string; when: (raw: string, bytes: number) => boolean; forward: boolean }>();
  const statuses = new Set<{ status: number; method?: string }>();
  const drops = new Set<{ method: string; afterForwarding: boolean }>();
  const delays = new Set<{ method: string; ms: number; afterForwarding: boolean }>();
  refusals.add({ message: "oversized data", when: (_raw, bytes) => bytes > NODE_MAX_TRANSACTION_BYTES, forward: false });

  const refusalOf = (raw: string): { message: string; forward: boolean } | null => {
    const bytes = (raw.length - 2) / 2;
    for (const refusal of refusals) if (refusal.when(raw, bytes)) return refusal;
    return null;
  };

  /** The answer of one request: a refusal, or null to forward it; `forward` when a refusal follows forwarding it. */
  const intercept = (request: RpcRequest): { answer: object | null; forward: boolean } => {
    counts.set(request.method, (counts.get(request.method) ?? 0) + 1);
    if (request.method !== "eth_sendRawTransaction") return { answer: null, forward: true };
    const raw = String(request.params?.[0]);
    const refusal = refusalOf(raw);
    sent.push({ raw, bytes: (raw.length - 2) / 2, refusal: refusal?.message ?? null });
    if (refusal === null) return { answer: null, forward: true };
    return { answer: { jsonrpc: "2.0", id: request.id, error: { code: -32000, message: refusal.message } }, forward: refusal.forward };
  };

  const forward = async (requests: RpcRequest[]): Promise<object[]> => {
    const response = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requests) });
    return (await response.json()) as object[];
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request);
    httpRequests += 1;
    const body = JSON.parse(text) as RpcRequest | RpcRequest[];
    const requests = Array.isArray(body) ? body : [body];
    const status = [...statuses].find((entry) => entry.method === undefined || requests.some((r) => r.method === entry.method));
    if (status) {
      for (const r of requests) counts.set(r.method, (counts.get(r.method) ?? 0) + 1);
      response.writeHead(status.status, { "content-type": "text/plain", "retry-after": "1" }).end("refused by the proxy");
      return;
    }
    const carried = (entry: { method: string }) => requests.some((r) => r.method === entry.method);
    await sleep(totalDelay([...delays].filter((entry) => !entry.afterForwarding && carried(entry))));
    const drop = [...drops].find(carried);
    if (drop && !drop.afterForwarding) {
      for (const r of requests) counts.set(r.method, (counts.get(r.method) ?? 0) + 1);
      request.socket.destroy();
      return;
    }
    const answers = requests.map(intercept);
    const forwarded = requests.filter((_, index) => answers[index].forward);
    const upstreamAnswers = forwarded.length > 0 ? await forward(forwarded) : [];
    let next = 0;
    const merged = answers.map(({ answer, forward: wasForwarded }) => {
      const upstreamAnswer = wasForwarded ? upstreamAnswers[next++] : undefined;
      return answer ?? upstreamAnswer;
    });
    // The node has it; the answer is lost on the way back.
    if (drop) {
      request.socket.destroy();
      return;
    }
    await sleep(totalDelay([...delays].filter((entry) => entry.afterForwarding && carried(entry))));
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(body) ? merged : merged[0]));
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => response.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    refuseTransactions(message, when = () => true, options = {}) {
      const refusal = { message, when, forward: options.forward ?? false };
      refusals.add(refusal);
      return () => refusals.delete(refusal);
    },
    answerStatus(status, method) {
      const entry = { status, method };
      statuses.add(entry);
      return () => statuses.delete(entry);
    },
    dropCalls(method, options = {}) {
      const entry = { method, afterForwarding: options.afterForwarding ?? false };
      drops.add(entry);
      return () => drops.delete(entry);
    },
    delayCalls(method, ms, options = {}) {
      const entry = { method, ms, afterForwarding: options.afterForwarding ?? false };
      delays.add(entry);
      return () => delays.delete(entry);
    },
    count: (method) => counts.get(method) ?? 0,
    counted: () => {
      const byMethod = [...counts.entries()].sort((a, b) => b[1] - a[1]);
      return { requests: httpRequests, calls: byMethod.reduce((sum, [, calls]) => sum + calls, 0), byMethod };
    },
    resetCounts: () => {
      counts = new Map();
      httpRequests = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function totalDelay(entries: { ms: number }[]): number {
  return entries.reduce((sum, entry) => sum + entry.ms, 0);
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
