import { type CanActivate, type ExecutionContext, Injectable } from "@nestjs/common";
import type { Response } from "express";

import { ApiError } from "../common/errors/api-error";
import type { AuthenticatedRequest } from "./authenticated-organization";
import { RateLimiter } from "./rate-limiter";

/**
 * The per-key rate limit for a request that was not counted before its body was read (the API
 * counts every authenticated request there, in app.setup.ts): a 429 carries Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const refusal = await this.limiter.consume(http.getRequest<AuthenticatedRequest>(), http.getResponse<Response>());
    if (refusal) throw new ApiError(429, refusal);
    return true;
  }
}
