import { createHmac } from "node:crypto";

import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";

import { generateWebhookSecret, isWebhookSecret } from "../secrets/webhook-secret";
import { signedHeaders } from "./callback-signing";

describe("Standard Webhooks signing", () => {
  const body = JSON.stringify({ action: "sold", ticketId: "t-1" });
  const at = new Date("2026-01-01T00:00:00.900Z");

  it("signs `{id}.{timestamp}.{body}` with HMAC-SHA256 of the base64-decoded secret", () => {
    const secret = generateWebhookSecret();
    const headers = signedHeaders("cb-1", body, [secret], at);
    expect(headers["webhook-id"]).toBe("cb-1");
    expect(headers["webhook-timestamp"]).toBe("1767225600");
    const expected = createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
      .update(`cb-1.1767225600.${body}`)
      .digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
  });

  it("carries one signature per secret, each verifiable alone", () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const now = new Date();
    const headers = signedHeaders("cb-2", body, [current, previous], now);
    const signatures = headers["webhook-signature"].split(" ");
    expect(signatures).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(current).verify(body, { ...headers, "webhook-signature": signatures[0] })).toBeTruthy();
    expect(() => new Webhook(current).verify(body, { ...headers, "webhook-signature": signatures[1] })).toThrow();
  });

  it("signs as the standardwebhooks library does, for each of many secrets (node:crypto in its place)", () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateWebhookSecret();
      const headers = signedHeaders(`cb-${i}`, `${body}${"é".repeat(i)}`, [secret], at);
      expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign(`cb-${i}`, at, `${body}${"é".repeat(i)}`));
    }
  });

  it("throws for a secret that is not whsec_ and base64, the second time too (a failed attempt, not a wrong signature)", () => {
    for (let i = 0; i < 2; i++) expect(() => signedHeaders("cb-3", body, [generateWebhookSecret(), "whsec_abc"], at)).toThrow(/not whsec_ and base64/);
  });

  it("accepts as secrets only whsec_ and well-formed base64 of at least 16 bytes", () => {
    expect(isWebhookSecret(generateWebhookSecret())).toBe(true);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(16, 7).toString("base64")}`)).toBe(true);
    expect(isWebhookSecret("whsec_abc")).toBe(false); // not base64: signing with it would throw
    expect(isWebhookSecret("whsec_abcd")).toBe(false); // 3 bytes
    expect(isWebhookSecret(Buffer.alloc(32).toString("base64"))).toBe(false);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(32).toString("base64url")}-_`)).toBe(false);
  });
});
