import { describe, expect, it } from "vitest";

import { signedHeaders } from "../../src/callbacks/delivery/callback-signing";
import { generateWebhookSecret } from "../../src/callbacks/secrets/webhook-secret";
import { testBody } from "../../src/callbacks/webhooks/notices";
import { type CallbackBody, isNotice, verifyWebhook, WebhookVerificationError } from "./webhooks.js";

/** The client's verifier against the service's own signing function. */
describe("verifyWebhook", () => {
  const callback: CallbackBody = {
    txHash: `0x${"ab".repeat(32)}`,
    transactionType: "ticket",
    action: "sold",
    eventId: "event-1",
    ticketId: "ticket-1",
    actionPromise: "9b2f5c3e-1d4a-4b8e-9f0a-7c6d5e4f3a2b",
    status: "confirmed",
    error: null,
    blockNumber: 1234,
    blockHash: `0x${"cd".repeat(32)}`,
    tokenId: "18446744073709551617",
    chainId: 80002,
    registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  };
  const body = JSON.stringify(callback);
  const secret = generateWebhookSecret();
  const sentAt = new Date("2026-11-23T12:00:00Z");
  const headers = signedHeaders("cb-1", body, [secret], sentAt);

  /** The reason a verification fails with. */
  const reasonOf = (verify: () => unknown) => {
    try {
      verify();
    } catch (error) {
      if (error instanceof WebhookVerificationError) return error.reason;
      throw error;
    }
    throw new Error("verified");
  };

  it("returns the parsed body of a callback the service signed, from a string or the raw bytes", () => {
    expect(verifyWebhook(body, headers, { secret, now: sentAt })).toEqual(callback);
    expect(verifyWebhook(Buffer.from(body), headers, { secret, now: new Date(sentAt.getTime() + 299_000) })).toEqual(callback);
    // Header names in any case, as a record or fetch Headers.
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(body, upper, { secret, now: sentAt })).toEqual(callback);
    expect(verifyWebhook(body, new Headers(headers), { secret, now: sentAt })).toEqual(callback);
  });

  it("verifies with either secret during a rotation, whichever the receiver holds", () => {
    const [next, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const rotating = signedHeaders("cb-2", body, [next, previous], sentAt);
    expect(rotating["webhook-signature"].split(" ")).toHaveLength(2);
    for (const held of [next, previous, [secret, previous]]) expect(verifyWebhook(body, rotating, { secret: held, now: sentAt })).toEqual(callback);
    expect(reasonOf(() => verifyWebhook(body, rotating, { secret, now: sentAt }))).toBe("invalid_signature");
  });

  it("rejects a tampered body", () => {
    const tampered = body.replace('"confirmed"', '"error"');
    expect(tampered).not.toBe(body);
    expect(reasonOf(() => verifyWebhook(tampered, headers, { secret, now: sentAt }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body + " ", headers, { secret, now: sentAt }))).toBe("invalid_signature");
  });

  it("rejects a wrong secret, and another callback's id or timestamp with this signature", () => {
    expect(reasonOf(() => verifyWebhook(body, headers, { secret: generateWebhookSecret(), now: sentAt }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, { ...headers, "webhook-id": "cb-other" }, { secret, now: sentAt }))).toBe("invalid_signature");
    const oneSecondLater = String(Number(headers["webhook-timestamp"]) + 1);
    expect(reasonOf(() => verifyWebhook(body, { ...headers, "webhook-timestamp": oneSecondLater }, { secret, now: sentAt }))).toBe("invalid_signature");
    expect(reasonOf(() => verifyWebhook(body, headers, { secret: "whsec_not base64!", now: sentAt }))).toBe("invalid_secret");
  });

  it("rejects an old timestamp (a replay) and one too far ahead, beyond the tolerance", () => {
    expect(reasonOf(() => verifyWebhook(body, headers, { secret, now: new Date(sentAt.getTime() + 301_000) }))).toBe("timestamp_too_old");
    expect(reasonOf(() => verifyWebhook(body, headers, { secret, now: new Date(sentAt.getTime() - 301_000) }))).toBe("timestamp_too_new");
    expect(verifyWebhook(body, headers, { secret, now: new Date(sentAt.getTime() + 3_600_000), toleranceSeconds: 7200 })).toEqual(callback);
    // Signed now, with the current time: accepted without `now`.
    expect(verifyWebhook(body, signedHeaders("cb-3", body, [secret]), { secret })).toEqual(callback);
  });

  it("rejects missing headers, a malformed timestamp and signatures of another version", () => {
    const { "webhook-signature": _signature, ...unsigned } = headers;
    expect(reasonOf(() => verifyWebhook(body, unsigned, { secret, now: sentAt }))).toBe("missing_header");
    expect(reasonOf(() => verifyWebhook(body, { ...headers, "webhook-timestamp": "1.7e9" }, { secret, now: sentAt }))).toBe("invalid_timestamp");
    const v2 = headers["webhook-signature"].replace("v1,", "v2,");
    expect(reasonOf(() => verifyWebhook(body, { ...headers, "webhook-signature": v2 }, { secret, now: sentAt }))).toBe("invalid_signature");
  });

  it("verifies a notice as the service signs it (a webhook endpoint's test), and tells it from an action's callback", () => {
    const notice = JSON.stringify(testBody("0190a000-0000-7000-8000-00000000000a", sentAt));
    const verified = verifyWebhook(notice, signedHeaders("cb-2", notice, [secret], sentAt), { secret, now: sentAt });

    expect(isNotice(verified)).toBe(true);
    expect(verified).toEqual({ action: "test", transactionType: "notice", webhookId: "0190a000-0000-7000-8000-00000000000a", sentAt: sentAt.toISOString() });
    expect(isNotice(verifyWebhook(body, headers, { secret, now: sentAt }))).toBe(false);
  });
});
