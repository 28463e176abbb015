import type { Request } from "express";

interface RouterLayer {
  route?: { path?: unknown };
}

/**
 * The name of the path parameter Express could not decode (`/api/v1/tickets/a%ffb`: ticketId), so
 * that the answer names it as for any other bad parameter. Express says only "Failed to decode
 * param" (a URIError) before any route is chosen; the parameter is found here by laying the path
 * over the registered route patterns, as the router does: `:name` segments take any one segment,
 * the others match literally, ignoring case. Null when no route pattern fits.
 */
export function undecodableParameter(request: Request): string | null {
  const segments = splitPath(request.path);
  for (const pattern of routePatterns(request)) {
    const name = undecodableIn(splitPath(pattern), segments);
    if (name !== null) return name;
  }
  return null;
}

/** The first `:name` segment of `pattern` whose segment of the path does not decode, when the path fits the pattern. */
export function undecodableIn(pattern: string[], segments: string[]): string | null {
  if (pattern.length !== segments.length) return null;
  let found: string | null = null;
  for (const [index, part] of pattern.entries()) {
    if (!part.startsWith(":")) {
      if (part.toLowerCase() !== segments[index].toLowerCase()) return null;
    } else if (found === null && !decodes(segments[index])) {
      found = part.slice(1);
    }
  }
  return found;
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

function routePatterns(request: Request): string[] {
  const stack = (request.app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
  return stack.flatMap((layer) => (typeof layer.route?.path === "string" ? [layer.route.path] : []));
}

function splitPath(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}
