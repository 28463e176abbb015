import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";

import { AuthService } from "./auth.service";
import { type AuthenticatedRequest, PUBLIC_ROUTE } from "./authenticated-organization";

export const API_KEY_HEADER = "x-api-key";

/** Every route needs a valid X-Api-Key unless marked @Public(); a failure is exactly 403 {"message":"Forbidden"}. */
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
    const presented = request.headers[API_KEY_HEADER];
    const organization = typeof presented === "string" ? await this.auth.authenticate(presented) : null;
    if (!organization) throw new ForbiddenException();
    request.organization = organization;
    return true;
  }
}
