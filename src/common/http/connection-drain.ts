import { Injectable, type BeforeApplicationShutdown } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";

/**
 * Keep-alive clients under load never let an HTTP server close: each connection stays busy. Once
 * shutdown begins, every response asks its client to close the connection, so the server is left
 * with no connection once the requests in flight are answered; none is cut mid-request.
 */
@Injectable()
export class ConnectionDrain implements BeforeApplicationShutdown {
  private draining = false;

  beforeApplicationShutdown(): void {
    this.draining = true;
  }

  readonly middleware = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.draining) response.setHeader("Connection", "close");
    next();
  };
}
