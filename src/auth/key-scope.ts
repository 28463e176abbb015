/**
 * What an API key may do, narrowest first; each scope covers those before it:
 * - `read`: every GET (the views, the action statuses, the live status stream, the callbacks' log);
 * - `scan`: the reads and checking tickets in (`POST /api/v1/scanned`, `/api/v1/checkedin`, and a
 *   `/stream` whose every action is a check-in): what a door scanner needs, and nothing that sells,
 *   resells or invalidates;
 * - `full`: everything, as every key had before scopes existed.
 */
export const KEY_SCOPES = ["read", "scan", "full"] as const;

export type KeyScope = (typeof KEY_SCOPES)[number];

/** A key made without a scope, and every key made before scopes, may do everything. */
export const DEFAULT_KEY_SCOPE: KeyScope = "full";

export function isKeyScope(value: unknown): value is KeyScope {
  return typeof value === "string" && (KEY_SCOPES as readonly string[]).includes(value);
}

/** Why `value` is not a scope, or null when it is one. */
export function keyScopeProblem(value: string): string | null {
  return isKeyScope(value) ? null : `"${value}" is not a scope: use one of ${[...KEY_SCOPES].reverse().join(", ")}`;
}

/** Whether a key of scope `held` may do what needs `needed`. */
export function scopeCovers(held: KeyScope, needed: KeyScope): boolean {
  return KEY_SCOPES.indexOf(held) >= KEY_SCOPES.indexOf(needed);
}

/** The scope that covers both. */
export function widerScope(a: KeyScope, b: KeyScope): KeyScope {
  return scopeCovers(a, b) ? a : b;
}
