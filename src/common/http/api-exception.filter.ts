import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from "@nestjs/common";
import type { Response } from "express";

import { ApiError } from "../errors/api-error";
import { isDatabaseUnreachable } from "../errors/database-unreachable";
import { errorDetail, type ErrorDetail } from "../errors/error-detail";
import { ReplayedAnswer } from "./replayed-answer";
import { DATABASE_UNAVAILABLE, sendServiceUnavailable } from "./service-unavailable";

/** The exact body the interface promises for a missing, unknown or revoked key. */
export const FORBIDDEN_BODY = { message: "Forbidden" } as const;

/** body-parser's errors carry a `type`; these are the ones a client can cause. */
interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
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
    if (response.headersSent) return;
    if (exception instanceof ReplayedAnswer) {
      response.status(exception.status).type("application/json").send(exception.body);
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
      this.sendHttpException(exception, response);
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

  private sendHttpException(exception: HttpException, response: Response): void {
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
    const cause = bodyErrorAnswer(exception.cause);
    if (cause) {
      response.status(cause.status).json({ status: "error", error: cause.detail });
      return;
    }
    response.status(status).json({ status: "error", error: errorDetail("invalid_body", exception.message) });
  }
}

/** Terminus' result of a health check ({status, info, error, details}), which it throws with a 503. */
function isHealthCheckResult(body: unknown): boolean {
  return typeof body === "object" && body !== null && "status" in body && "details" in body;
}

/** The answer to a body the parser refused (too large, not JSON), or null for any other error. */
export function bodyErrorAnswer(exception: unknown): { status: number; detail: ErrorDetail } | null {
  const error = exception as BodyParserError | null;
  if (!error || typeof error !== "object" || typeof error.type !== "string") return null;
  if (error.type === "entity.too.large") {
    return { status: 413, detail: errorDetail("payload_too_large", `The request body exceeds ${error.limit} bytes.`) };
  }
  if (error.type === "entity.parse.failed") {
    return { status: 400, detail: errorDetail("invalid_json", "The request body is not valid JSON.") };
  }
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
    return { status: 415, detail: errorDetail("invalid_body", "The request body must be UTF-8 JSON.") };
  }
  return null;
}
