import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** The JSON-RPC calls a counter saw since its last reset: each call of a batch request counts. */
export interface RpcCalls {
  /** HTTP requests (a batch is one). */
  requests: number;
  /** JSON-RPC calls (a batch of 20 is 20). */
  calls: number;
  /** Calls by method, the most frequent first. */
  byMethod: [string, number][];
}

/**
 * A JSON-RPC proxy in front of a chain node that counts what goes through it: put between a service
 * and its node (CHAIN_RPC_URL), it tells how many calls the service made in a stretch of time. It
 * forwards every body as it came and answers the node's answer as it came; a body it cannot read as
 * JSON-RPC is forwarded and counted under `(unreadable)`.
 */
export interface RpcCounter {
  url: string;
  /** What was counted since the start or the last reset. */
  counted: () => RpcCalls;
  reset: () => void;
  close: () => Promise<void>;
}

export async function startRpcCounter(upstream: string): Promise<RpcCounter> {
  let requests = 0;
  let methods = new Map<string, number>();
  const count = (method: string) => methods.set(method, (methods.get(method) ?? 0) + 1);

  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    void (async () => {
      const body = await readBody(request);
      requests += 1;
      for (const method of methodsOf(body)) count(method);
      try {
        const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
        const text = await answer.text();
        response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(text);
      } catch (error) {
        response.writeHead(502, { "content-type": "text/plain" }).end(`the node could not be reached: ${(error as Error).message}`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counted: () => {
      const byMethod = [...methods.entries()].sort((a, b) => b[1] - a[1]);
      return { requests, calls: byMethod.reduce((sum, [, calls]) => sum + calls, 0), byMethod };
    },
    reset: () => {
      requests = 0;
      methods = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
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

/** The method of each call in a JSON-RPC body: one for a single call, one per element of a batch. */
function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    const calls = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
    return calls.map((call) =>
      typeof call === "object" && call !== null && typeof (call as { method?: unknown }).method === "string"
        ? (call as { method: string }).method
        : "(unreadable)",
    );
  } catch {
    return ["(unreadable)"];
  }
}
