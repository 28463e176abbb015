import { type BeforeApplicationShutdown, Injectable, Logger } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";

/**
 * Keep-alive clients under load never let an HTTP server close: each connection stays busy. Once
 * shutdown begins, every response asks its client to close the connection, so the server is left
 * with no connection once the requests in flight are answered; none is cut mid-request.
 */
@Injectable()
export class ConnectionDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger("Shutdown");
  private draining = false;

  beforeApplicationShutdown(signal?: string): void {
    this.draining = true;
    this.logger.log(`${signal ?? "shutdown"}: leaving readiness, draining connections, finishing the work in flight`);
  }

  readonly middleware = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.draining) response.setHeader("Connection", "close");
    next();
  };
}
