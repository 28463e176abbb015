import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A keep-alive HTTPS receiver on 127.0.0.1 that answers every callback 204 and counts them. */
export async function startCallbackSink(certFile: string, keyFile: string): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), keepAliveTimeout: 60_000 }, (request, response) => {
    request.resume();
    request.on("end", () => {
      received += 1;
      response.writeHead(204).end();
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
