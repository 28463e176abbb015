import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";

import { readTestServerTls } from "./test-ca";

/** What the receiver answers to one request on a path. */
export interface ScriptedReply {
  /** HTTP status; 204 by default. */
  status?: number;
  /** Response headers, e.g. Retry-After or Location. */
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this many milliseconds. */
  delayMs?: number;
  /** Never answer (the request stays open until the client gives up or the receiver closes). */
  hang?: boolean;
  /**
   * Answer the status and then a body of this many bytes, written 64 KiB at a time as the connection
   * takes them (a receiver that answers 200 and streams gigabytes); what was written is in `streamed`.
   */
  streamBytes?: number;
  /** Answer the status and headers, then never send the body (a receiver that dribbles its answer). */
  bodyHangs?: boolean;
}

/** How far a streamed body went: the bytes handed to the connection, and whether the client closed it before the end. */
export interface StreamedBody {
  bytesWritten: number;
  closedByClient: boolean;
  /** Settles when the body has been written to its end, or the connection closed before it. */
  done: Promise<void>;
}

/** A request as the receiver saw it. */
export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (signatures are computed over it). */
  body: string;
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
  /** Date.now() when the answer was sent (undefined while pending, or for a hang). */
  answeredAt?: number;
  reply: ScriptedReply;
  /** For a reply with `streamBytes`: how far its body went. */
  streamed?: StreamedBody;
}

export interface HttpsReceiver {
  port: number;
  /** `https://localhost:{port}{path}`: reached by name, through CALLBACK_ALLOW_HOSTS=localhost. */
  url: (path: string) => string;
  /**
   * What `path` answers: `replies` in turn, one per request, then `then` for every later request
   * (204 unless given). With `match`, the script covers only requests whose parsed JSON body it
   * accepts (e.g. one ticket's callbacks); the latest script that covers a request answers it (so
   * a new script replaces an older one), and a request no script covers is answered 204.
   */
  script: (path: string, replies: ScriptedReply[], then?: ScriptedReply, match?: (body: any) => boolean) => void;
  /** Requests received so far, oldest first (all paths, or one). */
  requests: (path?: string) => ReceivedRequest[];
  /** Waits until `path` has received `count` requests and returns them. */
  waitForRequests: (path: string, count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  close: () => Promise<void>;
}

/**
 * A scriptable HTTPS server on 127.0.0.1 (random port) with the test CA's certificate for
 * localhost, 127.0.0.1 and ::1 (see tls-global-setup.ts). Keep-alive, like a real receiver.
 */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const tls = readTestServerTls();
  const scripts = new Map<string, { replies: ScriptedReply[]; then: ScriptedReply; match?: (body: any) => boolean }[]>();
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();

  const server: Server = createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 30_000 }, (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = (request.url ?? "/").split("?")[0];
      const body = Buffer.concat(chunks).toString("utf8");
      const script = scripts.get(path)?.findLast((candidate) => !candidate.match || candidate.match(parseJson(body)));
      const reply = (script?.replies.shift() ?? script?.then) || {};
      const entry: ReceivedRequest = { path, method: request.method ?? "", headers: request.headers, body, receivedAt: Date.now(), reply };
      received.push(entry);
      for (const wake of waiters) wake();
      if (reply.hang) return;
      const answer = () => {
        if (response.destroyed) return;
        entry.answeredAt = Date.now();
        response.writeHead(reply.status ?? 204, reply.headers);
        if (reply.bodyHangs) response.flushHeaders();
        else if (reply.streamBytes !== undefined) entry.streamed = streamBody(response, reply.streamBytes);
        else response.end(reply.body);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const requests = (path?: string) => received.filter((entry) => path === undefined || entry.path === path);

  return {
    port,
    url: (path) => `https://localhost:${port}${path}`,
    script: (path, replies, then = {}, match) => scripts.set(path, [...(scripts.get(path) ?? []), { replies: [...replies], then, match }]),
    requests,
    waitForRequests: (path, count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = requests(path);
          if (found.length < count) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${path} received ${requests(path).length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes `total` bytes of body, one chunk whenever the connection has room for it, until the end or until the client closes. */
function streamBody(response: ServerResponse, total: number): StreamedBody {
  const chunk = Buffer.alloc(64 * 1024, "x");
  const streamed: StreamedBody = { bytesWritten: 0, closedByClient: false, done: Promise.resolve() };
  streamed.done = new Promise<void>((resolve) => {
    response.once("finish", () => resolve());
    response.once("close", () => {
      streamed.closedByClient = !response.writableFinished;
      resolve();
    });
  });
  const pump = () => {
    while (streamed.bytesWritten < total && !response.destroyed) {
      const size = Math.min(chunk.length, total - streamed.bytesWritten);
      streamed.bytesWritten += size;
      if (!response.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
        response.once("drain", pump);
        return;
      }
    }
    if (!response.destroyed) response.end();
  };
  pump();
  return streamed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
