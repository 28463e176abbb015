/** The path below which an action's status is read: by its promise, or live as a stream of changes. */
const STATUS_PATH = "/api/v1/actions";

/**
 * Whether a request reads action statuses, which count on a budget of their own. Decided on the raw
 * URL, before routing (the limit is counted before the body is read): a path that is not exactly
 * a status route is answered 404 whichever budget paid for it.
 */
export function isStatusRead(method: string, originalUrl: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  const query = originalUrl.indexOf("?");
  const path = query === -1 ? originalUrl : originalUrl.slice(0, query);
  return path.startsWith(`${STATUS_PATH}/`);
}
