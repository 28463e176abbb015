import type { OpenAPIObject } from "@nestjs/swagger";

import { API_KEY_SECURITY } from "../common/http/api-responses";
import { KEY_SCOPES, type KeyScope } from "./key-scope";
import { KEY_SCOPE_EXTENSION, scopeOfMethod } from "./required-scope";

type Operation = OpenAPIObject["paths"][string]["get"] & Record<string, unknown>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** The scopes that cover each one, widest last, as a sentence says them. */
function keysThatMay(scope: KeyScope): string {
  const covering = KEY_SCOPES.slice(KEY_SCOPES.indexOf(scope));
  return covering.length === KEY_SCOPES.length ? "any key" : `a ${covering.join(" or ")} key`;
}

function forbiddenText(scope: KeyScope): string {
  const scopeRefusal =
    scope === "read"
      ? ""
      : ` A live key whose scope does not cover this operation (it needs ${scope}): {"message":"Forbidden","code":"key_scope"}, nothing applied.`;
  return (
    'Missing, unknown or revoked X-Api-Key: exactly {"message":"Forbidden"}.' +
    scopeRefusal +
    ' A live key bound to IP ranges, used from elsewhere: {"message":"Forbidden","code":"key_ip"}.'
  );
}

/**
 * Says on every operation that takes an API key which scope it needs: the `x-key-scope` extension
 * (declared by @RequiresScope, else the one its method gives, as the guard reads it), a line of its
 * description, and its 403's two refusals of a live key.
 */
export function documentKeyScopes(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = path[method] as Operation | undefined;
      if (!operation?.security?.some((requirement) => API_KEY_SECURITY in requirement)) continue;
      const scope = (operation[KEY_SCOPE_EXTENSION] as KeyScope | undefined) ?? scopeOfMethod(method);
      operation[KEY_SCOPE_EXTENSION] = scope;
      operation.description = `${operation.description ?? ""}\n\nKey scope: ${scope} (${keysThatMay(scope)} may call it).`.trim();
      const forbidden = operation.responses["403"] as { description?: string } | undefined;
      if (forbidden) forbidden.description = forbiddenText(scope);
    }
  }
  return document;
}
