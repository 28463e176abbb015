import { Logger } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";

import type { AuthService } from "../auth/auth.service";
import type { AuthenticatedRequest } from "../auth/authenticated-organization";
import type { RateLimiter } from "../auth/rate-limiter";
import { isDatabaseUnreachable } from "../common/errors/database-unreachable";
import { errorDetail } from "../common/errors/error-detail";
import { DATABASE_UNAVAILABLE, DEPENDENCY_RETRY_AFTER_SECONDS } from "../common/http/service-unavailable";
import type { KnownRoute } from "../metrics/http/route-label";
import { isKeyless } from "./keyless-paths";

const logger = new Logger("ApiKeyFirst");

/** What the exception filter answers to a failure of ours. */
const INTERNAL_ERROR = { status: "error", error: errorDetail("internal_error", "Something went wrong on our side; the request was not applied.") };

/**
 * The API key and the rate limit, before anything reads the body: Express middleware ordered
 * before the body parsers. A request to anything but the exact path of a public route (health,
 * @Public()) or of the docs (keyless-paths.ts), whatever its method and whether or not its path
 * exists, without a valid key gets exactly 403 {"message":"Forbidden"} (a live key used from outside
 * its IP ranges: with `code: "key_ip"`); a key over its limit gets the 429. Neither reads a byte of the body: the answer asks the client to close the connection,
 * and Node closes it once the answer is out instead of reading the rest. A key that cannot be
 * checked gets a 503 with Retry-After while the database is unreachable (a 500 for any other
 * failure), unread too. The guards (ApiKeyGuard, RateLimitGuard) see the request as authenticated
 * and counted and do not repeat either.
 */
export function apiKeyFirst(auth: AuthService, limiter: RateLimiter, routes: () => readonly KnownRoute[]) {
  return (request: AuthenticatedRequest, response: Response, next: NextFunction): void => {
    if (isKeyless(request.method, request.originalUrl, routes())) return next();
    const checked = auth.admit(request).then(async ({ admitted, refused }) => {
      if (refused) return { status: 403, body: refused };
      request.organization = admitted;
      const overLimit = await limiter.consume(request, response);
      return overLimit ? { status: 429, body: { status: "error", error: overLimit } } : null;
    });
    checked.then(
      (refusal) => (refusal ? refuse(request, response, refusal.status, refusal.body) : next()),
      // A failed key lookup (the database away): nobody is authenticated, so the body stays unread here too.
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (isDatabaseUnreachable(error)) {
          logger.warn(`API key not checked, database unreachable: ${reason}`);
          response.setHeader("Retry-After", String(DEPENDENCY_RETRY_AFTER_SECONDS));
          refuse(request, response, 503, { status: "error", error: DATABASE_UNAVAILABLE });
          return;
        }
        logger.error(`API key not checked: ${reason}`);
        refuse(request, response, 500, INTERNAL_ERROR);
      },
    );
  };
}

/** Answers without reading the body; a body still on its way is not read (the connection closes after the answer). */
function refuse(request: Request, response: Response, status: number, body: object): void {
  if (hasUnreadBody(request)) response.setHeader("Connection", "close");
  response.status(status).json(body);
}

function hasUnreadBody(request: Request): boolean {
  if (request.complete && request.readableLength === 0) return false;
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}
