/** The route label of a request that reached no route: an unknown path, or static files of the docs. */
export const UNMATCHED_ROUTE = "unmatched";

export interface KnownRoute {
  /** The route's pattern as registered, e.g. /api/v1/tickets/:ticketId. */
  pattern: string;
  /** Lower-case HTTP methods it answers. */
  methods: ReadonlySet<string>;
}

/** 2xx, 3xx, 4xx or 5xx: the answer's class, a label with five values at most. */
export function statusClass(statusCode: number): string {
  return `${Math.floor(statusCode / 100)}xx`;
}

/**
 * The pattern of the route a path belongs to, for requests answered before routing (a 403 for a
 * missing key, a 413 for a body over the cap): `:name` segments match any one segment, the others
 * match literally and ignoring case, as the router does. Never the raw path: ids in labels would
 * make a series per ticket.
 */
export function matchRoute(routes: readonly KnownRoute[], method: string, path: string): string {
  const segments = splitPath(path);
  const verb = method.toLowerCase();
  const route = routes.find((candidate) => answersMethod(candidate, verb) && segmentsMatch(splitPath(candidate.pattern), segments));
  return route?.pattern ?? UNMATCHED_ROUTE;
}

/** Whether a route answers a (lower-case) method: HEAD is answered by GET routes, as the router does. */
export function answersMethod(route: KnownRoute, verb: string): boolean {
  return route.methods.has(verb) || route.methods.has("_all") || (verb === "head" && route.methods.has("get"));
}

function segmentsMatch(pattern: string[], segments: string[]): boolean {
  return (
    pattern.length === segments.length &&
    pattern.every((part, index) => (part.startsWith(":") ? segments[index] !== "" : part.toLowerCase() === segments[index].toLowerCase()))
  );
}

function splitPath(path: string): string[] {
  const withoutQuery = path.split("?")[0];
  return withoutQuery.split("/").filter((segment) => segment !== "");
}
