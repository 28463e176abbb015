import { describe, expect, it } from "vitest";

import { REDACTED } from "./log-redaction";
import { isSecretName, redactRequest, redactResponse, redactUrl } from "./request-redaction";

describe("isSecretName", () => {
  it.each([
    "x-api-key",
    "X-Api_Key",
    "apiKey",
    "API-KEY",
    "api%5Fkey",
    "apikey[]",
    "access_token",
    "Access-Token",
    "x-auth-token",
    "authorization",
    "proxy-authorization",
    "password",
    "passwd",
    "client.secret",
    "webhook-signature",
    "sig",
    "cookie",
    "set-cookie",
    "session",
    "credentials",
    "jwt",
  ])("takes %s for a credential", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(["idempotency-key", "Idempotency_Key", "x-request-id", "limit", "cursor", "holder", "eventId", "user-agent", "content-type", "signal"])(
    "leaves %s readable",
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

describe("redactUrl", () => {
  it.each([
    ["/stream?apiKey=abc&limit=5", `/stream?apiKey=${REDACTED}&limit=5`],
    ["/stream?limit=5&X%2DApi%2DKey=abc", `/stream?limit=5&X%2DApi%2DKey=${REDACTED}`],
    ["/stream?apiKey:abc", `/stream?${REDACTED}`],
    ["/stream?limit=1;password=abc", `/stream?limit=${REDACTED}`],
    ["/stream?next=https%3A%2F%2Fx%2F%3Faccess_token%3Dabc", `/stream?next=${REDACTED}`],
    ["/api/v1/tickets/trk_AbCdEfGh_secret?x=1", `/api/v1/tickets/${REDACTED}?x=1`],
    ["/stream?trk_AbCdEfGh_secret", `/stream?${REDACTED}`],
    ["/stream?q=%E0%A4%A", "/stream?q=%E0%A4%A"],
    ["/api/v1/events/e-1?limit=5", "/api/v1/events/e-1?limit=5"],
  ])("%s logs as %s", (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

describe("the serializers", () => {
  it("redact the request's url, query and headers without touching the request itself", () => {
    const headers = { "x-api_key": "abc", referer: "https://docs.example/?apiKey=abc", accept: "text/html;q=0.9" };
    const serialized = redactRequest({ id: "r-1", method: "GET", url: "/x?token=abc", query: { token: "abc", limit: "5" }, headers });
    expect(serialized).toEqual({
      id: "r-1",
      method: "GET",
      url: `/x?token=${REDACTED}`,
      query: { token: REDACTED, limit: "5" },
      headers: { "x-api_key": REDACTED, referer: `https://docs.example/?apiKey=${REDACTED}`, accept: "text/html;q=0.9" },
    });
    expect(headers["x-api_key"]).toBe("abc");
  });

  it("redact response headers named like credentials", () => {
    expect(redactResponse({ statusCode: 200, headers: { "set-cookie": ["a=b"], "x-request-id": "r-1" } })).toEqual({
      statusCode: 200,
      headers: { "set-cookie": REDACTED, "x-request-id": "r-1" },
    });
  });
});
