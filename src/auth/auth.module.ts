import { Module } from "@nestjs/common";
import { APP_GUARD } from "@nestjs/core";

import { ApiKeyGuard } from "./api-key.guard";
import { AuthService } from "./auth.service";
import { KeyScopeGuard } from "./key-scope.guard";
import { OrganizationsService } from "./organizations.service";
import { RateLimitGuard } from "./rate-limit.guard";
import { RateLimiter } from "./rate-limiter";

/** API keys on every route (guards run in this order: key, its scope, then rate limit), onboarding. */
@Module({
  providers: [
    AuthService,
    OrganizationsService,
    RateLimiter,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: KeyScopeGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [OrganizationsService, AuthService, RateLimiter],
})
export class AuthModule {}
