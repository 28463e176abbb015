import type { KeyScope } from "../auth/key-scope";
import { ACTIONS } from "../common/actions";

/** The actions a `scan` key may send in a /stream: the names of a check-in, nothing that sells, resells, claims or invalidates. */
export const CHECK_IN_STREAM_ACTIONS: readonly string[] = ACTIONS.scanned.stream;

/**
 * The scope a /stream body needs: `scan` while every item is a check-in, `full` as soon as one is
 * anything else, an item that names no action it could take included: the request is refused
 * whole, before any of it is applied. A body that is no list needs no more than the route's scope:
 * the endpoint refuses it (invalid_body) whatever the key.
 */
export function scopeOfStreamActions(body: unknown): KeyScope {
  if (!Array.isArray(body)) return "scan";
  return body.every(isCheckIn) ? "scan" : "full";
}

function isCheckIn(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const action = (item as { action?: unknown }).action;
  return typeof action === "string" && CHECK_IN_STREAM_ACTIONS.includes(action);
}
