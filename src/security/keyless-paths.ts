import { answersMethod, type KnownRoute } from "../metrics/http/route-label";

/**
 * Swagger UI as @nestjs/swagger serves it under /docs (SwaggerModule.setup): the page (`/docs`,
 * `/docs/`, `/docs/index.html`), the files that page loads (swagger-ui-dist's stylesheet, bundle,
 * preset and icons, and the generated swagger-ui-init.js) and the document as JSON and YAML. The
 * other files of swagger-ui-dist the static mount would serve (its package.json, other bundles, the
 * OAuth2 redirect page this API has no use for) need a key like everything else.
 */
export const DOCS_PATHS: ReadonlySet<string> = new Set([
  "/docs",
  "/docs/",
  "/docs/index.html",
  "/docs/swagger-ui.css",
  "/docs/swagger-ui-bundle.js",
  "/docs/swagger-ui-standalone-preset.js",
  "/docs/swagger-ui-init.js",
  "/docs/favicon-32x32.png",
  "/docs/favicon-16x16.png",
  "/docs-json",
  "/docs-yaml",
]);

/**
 * Whether a request may go on without an API key: GET or HEAD of one of DOCS_PATHS, or a route
 * marked @Public(), matched exactly. Exactly means the path as sent (the query aside) must already be
 * in normal form: no dot segment (`.`, `..`, also percent-encoded), no empty segment (`//`, a
 * trailing slash), and the literal parts spelled as registered, in the same case. The router would
 * route some other spellings to the same place (it ignores case and a trailing slash) and others
 * elsewhere (`/docs/../api/v1/chain` is no docs path to it), so the only safe pass is the one
 * where both readings agree: everything else needs the key.
 */
export function isKeyless(method: string, url: string, publicRoutes: readonly KnownRoute[]): boolean {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if ((method === "GET" || method === "HEAD") && DOCS_PATHS.has(path)) return true;
  const segments = normalSegments(path);
  if (segments === null) return false;
  const verb = method.toLowerCase();
  return publicRoutes.some((route) => answersMethod(route, verb) && matchesExactly(route.pattern, segments));
}

/** The path's segments when it is in normal form; null when normalizing it would change it. */
function normalSegments(path: string): string[] | null {
  if (!path.startsWith("/")) return null;
  const segments = path.slice(1).split("/");
  return segments.every((segment) => segment !== "" && !isDotSegment(segment)) ? segments : null;
}

/** `.` and `..`, and their percent-encoded spellings (`%2e%2E`...), as URL resolution reads them. */
function isDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, ".");
  return decoded === "." || decoded === "..";
}

/** Literal segments equal as written; a `:name` segment takes any one (non-empty) segment, as the router does. */
function matchesExactly(pattern: string, segments: readonly string[]): boolean {
  const parts = pattern.split("/").filter((part) => part !== "");
  return parts.length === segments.length && parts.every((part, index) => part.startsWith(":") || part === segments[index]);
}
