import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { Response } from "express";

import { ApiError } from "../common/errors/api-error";
import type { AuthenticatedRequest } from "./authenticated-organization";
import { RateLimiter } from "./rate-limiter";

const COUNTS_ACTIONS = "countsActions";

/** Marks a route that accepts actions: its requests count their actions on the key's actions budget too. */
export const CountsActions = () => SetMetadata(COUNTS_ACTIONS, true);

/**
 * The per-key rate limit for a request that was not counted before its body was read (the API
 * counts every authenticated request there, in app.setup.ts), and the actions budget of the routes
 * marked @CountsActions(), whose body guards see read: a 429 carries Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const response = http.getResponse<Response>();
    const refusal = await this.limiter.consume(request, response);
    if (refusal) throw new ApiError(429, refusal);
    if (!this.reflector.get<boolean>(COUNTS_ACTIONS, context.getHandler())) return true;
    const actionsRefusal = await this.limiter.consumeActions(request, response);
    if (actionsRefusal) throw new ApiError(429, actionsRefusal);
    return true;
  }
}
