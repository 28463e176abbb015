import type { IncomingHttpHeaders } from "node:http";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A callback as the sink received it: the raw body (signatures are computed over it) and the headers. */
export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/**
 * A keep-alive HTTPS receiver on 127.0.0.1 that answers every callback 204 and counts them. With
 * `onCallback` it also reads each body and hands the callback over before answering. With
 * `closeConnections` it closes each connection after its answer (a receiver without keep-alive):
 * every callback then needs a connection, and so a name lookup, of its own.
 */
export async function startCallbackSink(
  certFile: string,
  keyFile: string,
  onCallback?: (callback: ReceivedCallback) => void,
  { closeConnections = false } = {},
): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 60_000 }, (request, response) => {
    const chunks: Buffer[] = [];
    if (onCallback) request.on("data", (chunk: Buffer) => chunks.push(chunk));
    else request.resume();
    request.on("end", () => {
      received += 1;
      onCallback?.({ path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() });
      response.writeHead(204, closeConnections ? { connection: "close" } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
