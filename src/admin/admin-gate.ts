import { Injectable } from "@nestjs/common";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";

import { clientKeyOfRequest } from "../common/http/client-key";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";
import { ADMIN_REALM, isAdminRequest } from "./admin-credential";

/** Who a request is to the operations views: the admin, anybody else, or a client IP that guessed too often. */
export type AdminStanding = { kind: "admin" } | { kind: "anonymous" } | { kind: "throttled"; retryAfterSeconds: number };

/**
 * The admin credential, checked with a budget of wrong guesses per client IP (an IPv6 client by its
 * /64). Past ADMIN_MAX_FAILED_SIGN_INS in the window every attempt from that IP is refused, the
 * right password too, so that the answer never tells a guesser it has found it. The count lives in
 * Redis, shared by every instance; while Redis cannot count, each instance counts in its own memory
 * (a throttle that lapses with Redis would give a guesser the outage).
 */
@Injectable()
export class AdminGate {
  private readonly failures: RateLimiterRedis;

  constructor(
    @InjectRedis() redis: Redis,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    const { points, durationSeconds } = config.admin.failedSignIns;
    this.failures = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.redis.keyPrefix}:admin-sign-in`,
      points,
      duration: durationSeconds,
      insuranceLimiter: new RateLimiterMemory({ points, duration: durationSeconds }),
    });
  }

  async standing(request: Request): Promise<AdminStanding> {
    const client = clientKeyOfRequest(request);
    const counted = await this.failures.get(client).catch(() => null);
    if (counted !== null && counted.consumedPoints >= this.config.admin.failedSignIns.points) {
      return { kind: "throttled", retryAfterSeconds: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)) };
    }
    const authorization = request.headers.authorization;
    if (authorization === undefined) return { kind: "anonymous" };
    if (isAdminRequest(authorization, this.config.admin)) return { kind: "admin" };
    // A refusal here only means this guess was the last one of the window; the next request learns it.
    await this.failures.consume(client).catch(() => undefined);
    return { kind: "anonymous" };
  }

  /**
   * Express middleware that lets only the admin through: anybody else gets 401 with a basic-auth
   * challenge, a client IP past its wrong guesses 429 with Retry-After, before any body is read.
   * Without ADMIN_PASSWORD the path is closed to everybody.
   */
  adminOnly(): RequestHandler {
    return (request: Request, response: Response, next: NextFunction): void => {
      this.standing(request).then((standing) => {
        if (standing.kind === "admin") return next();
        if (!request.complete) response.setHeader("Connection", "close");
        if (standing.kind === "throttled") {
          response.setHeader("Retry-After", String(standing.retryAfterSeconds));
          response.status(429).json({ message: "Too Many Requests" });
          return;
        }
        response.setHeader("WWW-Authenticate", `Basic realm="${ADMIN_REALM}"`);
        response.status(401).json({ message: "Unauthorized" });
      }, next);
    };
  }
}
