import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

import { type INestApplication, Injectable, type OnApplicationShutdown } from "@nestjs/common";
import type { NextFunction, Request, RequestHandler, Response } from "express";

import { errorDetail } from "../common/errors/error-detail";
import { limitSlowRequests } from "../common/http/slow-requests";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { readTlsFiles, watchTlsFiles } from "../security/tls";

/** Set on a request that came in through the operations port. */
const THROUGH_OPERATIONS_PORT = Symbol("throughOperationsPort");

/** What the operations port serves: metrics, the queue dashboard and health. */
const OPERATIONS_PATH = /^\/(?:metrics|admin|health)(?:[/?]|$)/i;
/** What only the operations port serves; health is on both, for the load balancer's probes. */
const OPERATIONS_ONLY_PATH = /^\/(?:metrics|admin)(?:[/?]|$)/i;

/**
 * The operations port (OPS_PORT) of the api and all roles: the same application as the API port,
 * through a server of its own, so that metrics and the queue dashboard are never reachable where the
 * API is published. A worker serves nothing else and keeps them on PORT.
 */
@Injectable()
export class OperationsServer implements OnApplicationShutdown {
  private server: Server | null = null;
  private stopWatching: (() => void) | null = null;

  constructor(@InjectConfig() private readonly config: AppConfig) {}

  /** Listens on OPS_PORT and HOST with the app's handler; its address, or null for a worker. */
  async listen(app: INestApplication): Promise<AddressInfo | null> {
    if (this.config.app.role === "worker") return null;
    const handler = app.getHttpAdapter().getInstance() as (request: IncomingMessage, response: ServerResponse) => void;
    const marked = (request: IncomingMessage, response: ServerResponse) => {
      (request as IncomingMessage & { [THROUGH_OPERATIONS_PORT]?: true })[THROUGH_OPERATIONS_PORT] = true;
      handler(request, response);
    };
    const tls = readTlsFiles(this.config.http);
    const server = tls ? createHttpsServer(tls, marked) : createHttpServer(marked);
    limitSlowRequests(server, this.config.http);
    if (tls) this.stopWatching = watchTlsFiles(server as HttpsServer, this.config.http);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.config.app.opsPort, this.config.app.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.server = server;
    return server.address() as AddressInfo;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopWatching?.();
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
  }
}

/**
 * Express middleware that keeps each port to its own: on the API port metrics and the queue
 * dashboard answer 404 as any unknown path; on the operations port everything but them and health.
 * A worker's one port serves what the worker has, all of it operations.
 */
export function servedByPort(config: AppConfig): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (config.app.role === "worker") return next();
    const throughOperations = (request as Request & { [THROUGH_OPERATIONS_PORT]?: true })[THROUGH_OPERATIONS_PORT] === true;
    const served = throughOperations ? OPERATIONS_PATH.test(request.originalUrl) : !OPERATIONS_ONLY_PATH.test(request.originalUrl);
    if (served) return next();
    if (!request.complete) response.setHeader("Connection", "close");
    response.status(404).json({ status: "error", error: errorDetail("not_found", "No such endpoint.") });
  };
}
