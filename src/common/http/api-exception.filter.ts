import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from "@nestjs/common";
import type { Request, Response } from "express";

import { ApiError } from "../errors/api-error";
import { isDatabaseUnreachable } from "../errors/database-unreachable";
import { errorDetail, type ErrorDetail, invalidField } from "../errors/error-detail";
import { KeyRefused, type KeyRefusalCode } from "../errors/key-refused";
import { ReplayedAnswer } from "./replayed-answer";
import { DATABASE_UNAVAILABLE, sendServiceUnavailable } from "./service-unavailable";
import { undecodableParameter } from "./undecodable-path";

/** The exact body the interface promises for a missing, unknown or revoked key. */
export const FORBIDDEN_BODY = { message: "Forbidden" } as const;

export type ForbiddenBody = typeof FORBIDDEN_BODY & { code?: KeyRefusalCode };

/** The 403 of a live key refused for this request: the interface's body, with the reason's code. */
export function keyRefusedBody(code: KeyRefusalCode): ForbiddenBody {
  return { ...FORBIDDEN_BODY, code };
}

/** body-parser's errors carry a `type`, and so do ours (BodyRefusal); these are the ones a client can cause. */
interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  depth?: number;
}

/**
 * Turns every failure into the shared error body; internals never leak into a 500. The database
 * unreachable is not a failure of the request: a 503 with Retry-After.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<Request>();
    if (response.headersSent) return;
    if (exception instanceof ReplayedAnswer) {
      response.status(exception.status).type("application/json").send(exception.body);
      return;
    }
    if (exception instanceof KeyRefused) {
      response.status(HttpStatus.FORBIDDEN).json(keyRefusedBody(exception.code));
      return;
    }
    if (exception instanceof ApiError) {
      response.status(exception.status).json({ ...exception.extra, status: "error", error: exception.detail });
      return;
    }
    const bodyError = bodyErrorAnswer(exception);
    if (bodyError) {
      response.status(bodyError.status).json({ status: "error", error: bodyError.detail });
      return;
    }
    if (exception instanceof HttpException) {
      this.sendHttpException(exception, request, response);
      return;
    }
    if (isDatabaseUnreachable(exception)) {
      this.logger.warn(`database unreachable, answered 503: ${(exception as Error).message}`);
      sendServiceUnavailable(response, DATABASE_UNAVAILABLE);
      return;
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    response.status(500).json({ status: "error", error: errorDetail("internal_error", "Something went wrong on our side; the request was not applied.") });
  }

  private sendHttpException(exception: HttpException, request: Request, response: Response): void {
    const status: HttpStatus = exception.getStatus();
    if (status === HttpStatus.FORBIDDEN) {
      response.status(status).json(FORBIDDEN_BODY);
      return;
    }
    if (status === HttpStatus.SERVICE_UNAVAILABLE && isHealthCheckResult(exception.getResponse())) {
      // A failed /health check: its documented body says which dependency is down.
      response.status(status).json(exception.getResponse());
      return;
    }
    if (status === HttpStatus.NOT_FOUND) {
      response.status(status).json({ status: "error", error: errorDetail("not_found", "No such endpoint.") });
      return;
    }
    const cause = bodyErrorAnswer(exception.cause) ?? pathErrorAnswer(exception, request);
    if (cause) {
      response.status(cause.status).json({ status: "error", error: cause.detail });
      return;
    }
    // A client error of the HTTP layer that none of the above names: its status, in our words (a
    // library's message may say more about us than about the request).
    response.status(status).json({ status: "error", error: errorDetail("invalid_body", `The request could not be read (HTTP ${status}).`) });
  }
}

/** A path Express could not decode (a malformed %-escape, bytes that are not UTF-8): the parameter at fault, as invalid_field. */
function pathErrorAnswer(exception: HttpException, request: Request): Answer | null {
  // Nest wraps a URIError only when Express marked it 400: the router's decoding of a path parameter.
  if (!(exception.cause instanceof URIError)) return null;
  const message = "is not UTF-8 text percent-encoded (a malformed %-escape, or bytes that are not UTF-8)";
  return { status: 400, detail: invalidField(undecodableParameter(request) ?? "path", message) };
}

/** Terminus' result of a health check ({status, info, error, details}), which it throws with a 503. */
function isHealthCheckResult(body: unknown): boolean {
  return typeof body === "object" && body !== null && "status" in body && "details" in body;
}

type Answer = { status: number; detail: ErrorDetail };

/**
 * The answers to the bodies refused before an endpoint (too large, not JSON, nested too deep, not
 * UTF-8), by the `type` body-parser (or our BodyRefusal) gives the error; always in our words.
 */
const BODY_ERRORS: Record<string, (error: BodyParserError) => Answer> = {
  "entity.too.large": (error) => ({ status: 413, detail: errorDetail("payload_too_large", `The request body exceeds ${error.limit} bytes.`) }),
  "entity.parse.failed": () => ({ status: 400, detail: errorDetail("invalid_json", "The request body is not valid JSON.") }),
  "entity.too.deep": (error) => ({
    status: 400,
    detail: errorDetail("nesting_too_deep", `The request body nests arrays and objects more than ${error.depth} levels deep.`),
  }),
  "charset.unsupported": () => ({
    status: 415,
    detail: errorDetail("invalid_body", "The request body must be UTF-8 JSON: its Content-Type names another charset."),
  }),
  "encoding.unsupported": () => ({
    status: 415,
    detail: errorDetail("invalid_body", "The request body's Content-Encoding is not read: send it as is, or as gzip, deflate, br or zstd."),
  }),
  "entity.decompress.failed": () => ({
    status: 400,
    detail: errorDetail("invalid_body", "The request body does not decompress as its Content-Encoding says."),
  }),
  "request.size.invalid": () => ({
    status: 400,
    detail: errorDetail("invalid_body", "The request body's length is not the one its Content-Length says."),
  }),
};

/** The answer to a body refused before an endpoint, or null for any other error. */
export function bodyErrorAnswer(exception: unknown): Answer | null {
  const error = exception as BodyParserError | null;
  if (!error || typeof error !== "object" || typeof error.type !== "string") return null;
  return Object.hasOwn(BODY_ERRORS, error.type) ? BODY_ERRORS[error.type](error) : null;
}
