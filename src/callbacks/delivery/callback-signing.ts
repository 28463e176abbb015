import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks headers: `webhook-id` (the callback's id, the same on every attempt, so
 * receivers can drop duplicates), `webhook-timestamp` and `webhook-signature` with one `v1,`
 * signature per active secret (two during a rotation's grace period).
 */
export function signedHeaders(callbackId: string, body: string, secrets: readonly string[], now = new Date()): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(callbackId, now, body));
  return {
    "webhook-id": callbackId,
    "webhook-timestamp": Math.floor(now.getTime() / 1000).toString(),
    "webhook-signature": signatures.join(" "),
  };
}
