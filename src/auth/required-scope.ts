import { applyDecorators, RequestMethod, SetMetadata } from "@nestjs/common";
import { METHOD_METADATA } from "@nestjs/common/constants";
import { ApiExtension } from "@nestjs/swagger";

import { type KeyScope, widerScope } from "./key-scope";

/** The OpenAPI extension that names the scope each operation needs (documentKeyScopes fills in the derived ones). */
export const KEY_SCOPE_EXTENSION = "x-key-scope";

const REQUIRED_SCOPE = "requiredKeyScope";

/** The scope a request's body needs, for a route whose body says what it does (a /stream's actions). */
export type ScopeOfBody = (body: unknown) => KeyScope;

interface DeclaredScope {
  scope: KeyScope;
  ofBody?: ScopeOfBody;
}

/**
 * Declares the scope a route needs where the one its method gives (scopeOfMethod) is not right: the
 * check-in endpoints need only `scan`. With `ofBody`, a request needs the wider of `scope` and what
 * its body needs, checked before anything of it is applied.
 */
export const RequiresScope = (scope: KeyScope, ofBody?: ScopeOfBody) =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE, { scope, ofBody } satisfies DeclaredScope), ApiExtension(KEY_SCOPE_EXTENSION, scope));

/**
 * The scope a route needs unless it declares another: a GET (and a HEAD, which Express routes to
 * it) only reads, so any key may; any other method changes something, so only a `full` key may. A
 * new route is thereby never open to a narrower key than it should be.
 */
export function scopeOfMethod(method: string): KeyScope {
  const name = method.toUpperCase();
  return name === "GET" || name === "HEAD" ? "read" : "full";
}

/** A route handler, as Nest's metadata keys it. */
type Handler = object;

/** The scope a route needs, before its body is looked at. */
export function scopeOfRoute(handler: Handler): KeyScope {
  const declared = Reflect.getMetadata(REQUIRED_SCOPE, handler) as DeclaredScope | undefined;
  if (declared) return declared.scope;
  return scopeOfMethod(RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod]);
}

/** The scope a request to the route needs, its body included. */
export function scopeOfRequest(handler: Handler, body: unknown): KeyScope {
  const declared = Reflect.getMetadata(REQUIRED_SCOPE, handler) as DeclaredScope | undefined;
  const route = scopeOfRoute(handler);
  return declared?.ofBody ? widerScope(route, declared.ofBody(body)) : route;
}
