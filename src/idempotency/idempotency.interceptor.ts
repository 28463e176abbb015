import { createHash } from "node:crypto";

import { type CallHandler, type ExecutionContext, Injectable, Logger, type NestInterceptor } from "@nestjs/common";
import type { Response } from "express";
import type { Observable } from "rxjs";

import type { AuthenticatedRequest } from "../auth/authenticated-organization";
import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import { ReplayedAnswer } from "../common/http/replayed-answer";
import { requestIdOf } from "../common/http/request-id";
import { withTransactionHook } from "../common/transaction-hook";
import { IDEMPOTENCY_KEY_TTL_HOURS, IdempotencyStore } from "./idempotency.store";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";
/** Up to 255 visible ASCII characters (a UUID v4 is the usual choice). */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key on every POST, with Stripe's semantics: the first request with a key runs and its
 * answer (status and body) is kept for 24 hours; the same key with the same request answers that
 * again with `Idempotent-Replayed: true` and applies nothing; with another request (endpoint or
 * body) it answers 422 idempotency_key_reused; while the first still runs, 409 idempotency_key_in_use.
 * An answer too large to keep answers 409 idempotency_answer_not_kept to a retry (its request applied,
 * never twice); an organization holding its most keys gets 429 idempotency_keys_exhausted for a new one.
 * Keys are per organization. Runs after the key and rate-limit guards: a 403 or 429 never claims a key.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger("Idempotency");

  constructor(private readonly store: IdempotencyStore) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== "http") return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const presented = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (request.method !== "POST" || presented === undefined || !request.organization) return next.handle();
    const key = Array.isArray(presented) ? presented.join(", ") : presented;
    if (!KEY_FORMAT.test(key)) {
      throw new ApiError(
        400,
        errorDetail("invalid_field", `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters (a UUID, say).`, IDEMPOTENCY_KEY_HEADER),
      );
    }
    const organizationId = request.organization.id;
    const fingerprint = createHash("sha256")
      .update(`${request.method} ${request.originalUrl}\n${JSON.stringify(request.body) ?? ""}`)
      .digest("hex");
    const claim = await this.store.claim(organizationId, key, fingerprint, requestIdOf(request));
    switch (claim.kind) {
      case "replay":
        response.setHeader(IDEMPOTENT_REPLAYED_HEADER, "true");
        throw new ReplayedAnswer(claim.status, claim.body);
      case "reused":
        throw new ApiError(
          422,
          errorDetail(
            "idempotency_key_reused",
            `This ${IDEMPOTENCY_KEY_HEADER} was used in the last ${IDEMPOTENCY_KEY_TTL_HOURS} hours for another request (another endpoint or body); use a new key for a new request.`,
            IDEMPOTENCY_KEY_HEADER,
          ),
        );
      case "not_kept":
        throw new ApiError(
          409,
          errorDetail(
            "idempotency_answer_not_kept",
            `The first request with this ${IDEMPOTENCY_KEY_HEADER} ran and was answered ${claim.status}, but its answer was larger than the ` +
              `${this.store.answerLimitBytes} bytes kept for a retry, so it cannot be sent again; nothing was applied again. The actions it ` +
              `accepted carry its X-Request-Id${claim.requestId === null ? "" : ` (${claim.requestId})`}: each ticket's and event's view lists them with their promises.`,
            IDEMPOTENCY_KEY_HEADER,
          ),
        );
      case "exhausted":
        response.setHeader("Retry-After", String(claim.retryAfterSeconds));
        throw new ApiError(
          429,
          errorDetail(
            "idempotency_keys_exhausted",
            `This organization holds as many ${IDEMPOTENCY_KEY_HEADER}s as it may (each for ${IDEMPOTENCY_KEY_TTL_HOURS} hours); nothing was applied. ` +
              `Send it again after Retry-After seconds, when the oldest expires, or without the header.`,
            IDEMPOTENCY_KEY_HEADER,
          ),
        );
      case "in_use":
        throw new ApiError(
          409,
          errorDetail(
            "idempotency_key_in_use",
            claim.applied
              ? `The first request with this ${IDEMPOTENCY_KEY_HEADER} was applied but its answer was not kept (the service stopped before answering); its actions carry its X-Request-Id.`
              : `The first request with this ${IDEMPOTENCY_KEY_HEADER} is still running; retry after it has been answered.`,
            IDEMPOTENCY_KEY_HEADER,
          ),
        );
    }
    this.keepAnswer(response, organizationId, key, claim.claim);
    return withTransactionHook(
      (manager) => this.store.markApplied(manager, organizationId, key, claim.claim),
      () => next.handle(),
    );
  }

  /**
   * Every answer of these endpoints goes out through response.json (the handler's result and the
   * exception filter alike): it is stored first, then sent, so a retry that comes as soon as the
   * answer arrives finds it. The handler runs to its end even when the client has gone, so a client
   * that disconnected gets the stored answer when it retries.
   */
  private keepAnswer(response: Response, organizationId: string, key: string, claim: string): void {
    const send = response.json.bind(response);
    response.json = (body: unknown) => {
      response.json = send;
      const status = response.statusCode;
      this.store
        .finish(organizationId, key, claim, status, JSON.stringify(body) ?? "null")
        .catch((error: unknown) => this.logger.error(`answer of Idempotency-Key not kept: ${(error as Error).message}`))
        .finally(() => send(body));
      return response;
    };
  }
}
