import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";

import { KeyRefused } from "../common/errors/key-refused";
import { AuthService } from "./auth.service";
import { type AuthenticatedRequest, PUBLIC_ROUTE } from "./authenticated-organization";

/**
 * Every route needs a valid X-Api-Key unless marked @Public(): a missing, unknown or revoked key gets
 * exactly 403 {"message":"Forbidden"}, a live key used from outside its IP ranges the same with
 * `code: "key_ip"`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Writes were authenticated before their body was read (app.setup.ts).
    if (request.organization) return true;
    const { admitted, refused } = await this.auth.admit(request);
    if (refused) throw refused.code ? new KeyRefused(refused.code) : new ForbiddenException();
    request.organization = admitted;
    return true;
  }
}
