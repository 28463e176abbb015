import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

import type { INestApplication } from "@nestjs/common";
import type { Request } from "express";
import type pino from "pino";
import { type HttpLogger, pinoHttp } from "pino-http";

import type { AuthenticatedRequest } from "../auth/authenticated-organization";
import { requestIdOf } from "../common/http/request-id";
import { redactRequest, redactResponse, redactUrl } from "./request-redaction";

/** Probes and scrapes come every few seconds: at info they would bury everything else. */
const QUIET_PATHS = ["/health", "/metrics"];

/** The Nest provider token of the application's pino-http middleware. */
export const HTTP_LOGGER = Symbol("HTTP_LOGGER");

/**
 * One line per finished request, with the request id of request-id.ts as pino-http's `req.id`:
 * `requestId` on the request's line and on every line logged while it is handled (the same id the
 * ledger stores with its actions), and the organization once its API key is known. Credentials sent
 * anywhere in the request (a key in the query, a misspelt key header) are redacted in the url, the
 * query, the headers and the message (request-redaction.ts).
 */
export function createHttpLogger(logger: pino.Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (request) => requestIdOf(request as Request) ?? randomUUID(),
    // Lines logged while the request is handled carry only its id, not its headers again.
    quietReqLogger: true,
    customAttributeKeys: { reqId: "requestId" },
    serializers: { req: redactRequest, res: redactResponse },
    customProps: (request) => organizationOf(request),
    customLogLevel: levelOf,
    customSuccessMessage: (request, response, responseTime) => `${request.method} ${redactUrl(pathOf(request))} ${response.statusCode} in ${responseTime} ms`,
    customErrorMessage: (request, response) => `${request.method} ${redactUrl(pathOf(request))} failed with ${response.statusCode}`,
  });
}

/**
 * Mounts the request logger ahead of every other middleware (right after the request id), so
 * requests answered early (a 403 before the body is read, a body too large) are logged too.
 */
export function useHttpLogging(app: INestApplication): void {
  app.use(app.get<HttpLogger>(HTTP_LOGGER));
}

/** The URL as the client sent it: a router mounted on a path (the queue dashboard) has shortened `url` by then. */
function pathOf(request: IncomingMessage): string {
  return (request as Partial<Request>).originalUrl ?? request.url ?? "";
}

function organizationOf(request: IncomingMessage): { ticketeerId?: string; keyPrefix?: string } {
  const organization = (request as AuthenticatedRequest).organization;
  return organization ? { ticketeerId: organization.ticketeerId, keyPrefix: organization.keyPrefix } : {};
}

function levelOf(request: IncomingMessage, response: ServerResponse, error?: Error): pino.LevelWithSilent {
  const failed = error !== undefined || response.statusCode >= 500;
  const path = pathOf(request);
  if (QUIET_PATHS.some((quiet) => path === quiet || path.startsWith(`${quiet}/`) || path.startsWith(`${quiet}?`))) return failed ? "warn" : "debug";
  return failed ? "error" : "info";
}
