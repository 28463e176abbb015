import { randomUUID } from "node:crypto";

import type { NextFunction, Request, Response } from "express";

export const REQUEST_ID_HEADER = "x-request-id";

/** Correlates a request with its ledger rows and, later, its transactions and callbacks. */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const presented = request.headers[REQUEST_ID_HEADER];
  const requestId = typeof presented === "string" && /^[\w.:-]{1,128}$/.test(presented) ? presented : randomUUID();
  (request as Request & { requestId: string }).requestId = requestId;
  response.setHeader(REQUEST_ID_HEADER, requestId);
  next();
}

export function requestIdOf(request: Request): string | null {
  return (request as Request & { requestId?: string }).requestId ?? null;
}
