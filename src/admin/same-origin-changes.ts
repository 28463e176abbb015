import type { NextFunction, Request, RequestHandler, Response } from "express";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

interface Refusal {
  status: number;
  code: string;
  message: string;
}

/**
 * A change on the operations views (the queue dashboard's pause, retry, add…) must come from a page
 * of this address: an `Origin` header naming the scheme and host the request came to, and a body, if
 * any, of JSON. A browser sends a cross-site form or a text/plain POST without asking, with the
 * admin's cached basic-auth credential; it cannot send a JSON body or a PUT to another origin
 * without a CORS preflight, which nothing here answers. A bodyless PUT (the dashboard's own pause
 * button sends one) needs the preflight too, so it only needs the Origin.
 */
export function sameOriginChanges(): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (READS.has(request.method)) return next();
    const refusal = originRefusal(request) ?? bodyRefusal(request);
    if (refusal === null) return next();
    if (!request.complete) response.setHeader("Connection", "close");
    response.status(refusal.status).json({ message: refusal.message, code: refusal.code });
  };
}

function originRefusal(request: Request): Refusal | null {
  const origin = request.headers.origin;
  if (origin !== undefined && origin.toLowerCase() === `${request.protocol}://${request.host}`.toLowerCase()) return null;
  return {
    status: 403,
    code: "origin_mismatch",
    message: `A change needs an Origin header naming this address (${request.protocol}://${request.host ?? "its host"}); got ${origin ?? "none"}.`,
  };
}

function bodyRefusal(request: Request): Refusal | null {
  const type = request.headers["content-type"];
  const hasBody = request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
  if (type === undefined ? !hasBody : request.is("application/json") !== false) return null;
  return { status: 415, code: "json_required", message: "A change takes a JSON body (Content-Type: application/json) or none." };
}
