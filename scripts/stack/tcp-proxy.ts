import { connect, createServer, type Server, type Socket } from "node:net";

import { freePort } from "./ports";

/**
 * A TCP proxy on a fixed local port in front of a target port: `close()` makes the target
 * unreachable (new connections are refused, open ones are cut), `open()` brings it back on the
 * same port. For outage tests between the service and its JSON-RPC node.
 */
export interface TcpProxy {
  port: number;
  url: string;
  open: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  const open = () =>
    new Promise<void>((resolve, reject) => {
      if (server) return resolve();
      const listening = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        track(client);
        track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => {
        server = listening;
        resolve();
      });
    });

  const close = () =>
    new Promise<void>((resolve) => {
      const closing = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (!closing) return resolve();
      closing.close(() => resolve());
    });

  await open();
  return { port, url: `http://127.0.0.1:${port}`, open, close };
}
