import { type CanActivate, type ExecutionContext, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";

import { KeyRefused } from "../common/errors/key-refused";
import { type AuthenticatedRequest, PUBLIC_ROUTE } from "./authenticated-organization";
import { scopeCovers } from "./key-scope";
import { scopeOfRequest } from "./required-scope";

/**
 * A request whose key's scope does not cover what it asks (required-scope.ts) gets 403
 * {"message":"Forbidden","code":"key_scope"}. A guard, so it runs before the interceptors and the
 * handler (nothing is applied, no Idempotency-Key is taken) and before the actions budget is spent;
 * after the body is read, so a /stream is judged by every action it holds.
 */
@Injectable()
export class KeyScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // ApiKeyGuard, before this one, admitted the request or refused it.
    if (!request.organization) throw new Error("KeyScopeGuard reached without an authenticated key");
    if (!scopeCovers(request.organization.keyScope, scopeOfRequest(context.getHandler(), request.body))) throw new KeyRefused("key_scope");
    return true;
  }
}
