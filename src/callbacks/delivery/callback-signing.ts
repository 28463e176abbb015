import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

import { isWebhookSecret } from "../secrets/webhook-secret";

/**
 * The secrets' keys, decoded once, as KeyObjects (createHmac with a Buffer key builds one on every
 * call, six times the cost of the HMAC of a callback's body): a worker signs every callback of an
 * organization with the same one or two secrets. Cleared when it grows past any plausible count of active secrets, so rotated
 * secrets do not stay in memory for the life of the process.
 */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

/**
 * Standard Webhooks headers: `webhook-id` (the callback's id, the same on every attempt, so
 * receivers can drop duplicates), `webhook-timestamp` and `webhook-signature` with one `v1,`
 * signature per active secret (two during a rotation's grace period). The signature is the
 * specification's HMAC-SHA256 of `{id}.{timestamp}.{body}` with node:crypto rather than through the
 * standardwebhooks package, whose pure-JavaScript SHA-256 was a visible share of the dispatcher's
 * CPU time at thousands of callbacks a second (the spec compares the two).
 */
export function signedHeaders(callbackId: string, body: string, secrets: readonly string[], now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000).toString();
  const signed = `${callbackId}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => `v1,${createHmac("sha256", keyOf(secret)).update(signed).digest("base64")}`);
  return { "webhook-id": callbackId, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
}

/** A secret's key; throws for a secret that is not `whsec_` and well-formed base64 (the attempt then fails, as it did with the library). */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    if (!isWebhookSecret(secret)) throw new Error("a webhook secret of the organization is not whsec_ and base64 of at least 16 bytes");
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret.slice("whsec_".length), "base64"));
    keys.set(secret, key);
  }
  return key;
}
