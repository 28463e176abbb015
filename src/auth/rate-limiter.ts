import { Injectable, Logger } from "@nestjs/common";
import type { Response } from "express";
import type Redis from "ioredis";

import { errorDetail, type ErrorDetail } from "../common/errors/error-detail";
import { SharedRateLimit } from "../common/http/shared-rate-limit";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";
import type { AuthenticatedRequest } from "./authenticated-organization";
import { isStatusRead } from "./status-reads";

/** Marks a request whose key has been counted already, so that it is counted once. */
const COUNTED = Symbol("rateLimitCounted");

/** One budget per API key: its counter and what a refusal says. */
interface Budget {
  limit: SharedRateLimit;
  refusal: ErrorDetail;
}

/**
 * Requests per API key per window (see SharedRateLimit), with status reads on a budget of their own
 * so that an integrator polling its actions' statuses never spends the room of its writes. Used
 * before the body is read (app.setup.ts), and by RateLimitGuard for any request not counted then.
 * The requests of the accepting endpoints also count their actions (RATE_LIMIT_ACTIONS), once the
 * body is read: a /stream of 5000 actions costs 5000 of them, a sale one.
 */
@Injectable()
export class RateLimiter {
  private readonly requests: Budget;
  private readonly statusReads: Budget;
  /** The actions the accepting endpoints' requests carry, per key, in the request budget's window. */
  private readonly actions: Budget;

  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const logger = new Logger(RateLimiter.name);
    const budget = (name: string, what: string, { points, durationSeconds }: { points: number; durationSeconds: number }): Budget => ({
      limit: new SharedRateLimit(redis, { keyPrefix: `${config.redis.keyPrefix}:${name}`, points, durationSeconds }, logger),
      refusal: errorDetail("rate_limited", `At most ${points} ${what} per ${durationSeconds} s per API key.`),
    });
    this.requests = budget("rate", "requests", config.rateLimit);
    this.statusReads = budget("rate-status", "status reads", config.statusReadLimit);
    this.actions = budget("rate-actions", "actions", { points: config.rateLimit.actions, durationSeconds: config.rateLimit.durationSeconds });
  }

  /** Counts the request against its key once; the 429 error's detail when the key is over its limit, else null. */
  async consume(request: AuthenticatedRequest, response: Response): Promise<ErrorDetail | null> {
    const counted = request as AuthenticatedRequest & { [COUNTED]?: boolean };
    if (!request.organization || counted[COUNTED]) return null;
    counted[COUNTED] = true;
    const budget = isStatusRead(request.method, request.originalUrl) ? this.statusReads : this.requests;
    return (await budget.limit.allow(request.organization.keyPrefix, response)) ? null : budget.refusal;
  }

  /**
   * Counts the request's actions against its key (RATE_LIMIT_ACTIONS): an array body's items, one for
   * an object. The 429 error's detail when they do not fit in the key's window, else null.
   */
  async consumeActions(request: AuthenticatedRequest, response: Response): Promise<ErrorDetail | null> {
    if (!request.organization) return null;
    const body: unknown = request.body;
    const count = Array.isArray(body) ? body.length : 1;
    if (count === 0) return null;
    return (await this.actions.limit.allowPoints(request.organization.keyPrefix, count, response)) ? null : this.actions.refusal;
  }
}
