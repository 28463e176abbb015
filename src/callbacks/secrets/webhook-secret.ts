import { randomBytes } from "node:crypto";

/** Whether `secret` is `whsec_` and well-formed base64 of at least 16 bytes: signing with it cannot fail. */
export function isWebhookSecret(secret: string): boolean {
  const encoded = secret.slice("whsec_".length);
  return secret.startsWith("whsec_") && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0 && Buffer.from(encoded, "base64").length >= 16;
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
