import { createParamDecorator, type ExecutionContext, SetMetadata } from "@nestjs/common";
import type { Request } from "express";

import type { KeyScope } from "./key-scope";

export const API_KEY_HEADER = "x-api-key";

export interface AuthenticatedOrganization {
  id: string;
  ticketeerId: string;
  name: string;
  /** The presented key's lookup prefix: names the key in logs and rate limits, never the secret. */
  keyPrefix: string;
  /** What the presented key may do. */
  keyScope: KeyScope;
}

export type AuthenticatedRequest = Request & { organization?: AuthenticatedOrganization };

export const PUBLIC_ROUTE = "publicRoute";

/** Marks a route that needs no API key (health). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The organization of the request's API key. */
export const CurrentOrganization = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedOrganization => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.organization) throw new Error("CurrentOrganization used on a route without the API key guard");
  return request.organization;
});
