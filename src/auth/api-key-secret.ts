import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Characters of a key that are stored in clear to find its row; the rest is only ever hashed. */
export const API_KEY_PREFIX_LENGTH = 12;

const KEY_MARKER = "trk_";

/** A new key: `trk_` + 8 lookup characters + `_` + 43 secret characters (256 random bits). */
export function generateApiKey(): string {
  return `${KEY_MARKER}${randomBytes(6).toString("base64url")}_${randomBytes(32).toString("base64url")}`;
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function apiKeyMatches(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(key), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
