import { describe, expect, it } from "vitest";

import { endpointDisabledNotice, testBody } from "./notices";

describe("notices", () => {
  it("a test callback says what it is, for which endpoint and when, and nothing else", () => {
    expect(testBody("0190a000-0000-7000-8000-00000000000a", new Date("2026-05-01T12:00:00Z"))).toEqual({
      action: "test",
      transactionType: "notice",
      webhookId: "0190a000-0000-7000-8000-00000000000a",
      sentAt: "2026-05-01T12:00:00.000Z",
    });
  });

  it("endpoint_disabled names the receiver by its origin only, for the organization's other endpoints", () => {
    const notice = endpointDisabledNotice({
      organizationId: "org-1",
      webhookId: null,
      eventRef: "e-1",
      eventId: "event-1",
      url: "https://hooks.example.com:8443/registry?token=secret",
      failingSince: new Date("2026-04-26T12:00:00Z"),
      disabledAt: new Date("2026-05-01T12:00:00Z"),
    });
    expect(notice).toEqual({
      organizationId: "org-1",
      aboutWebhookId: null,
      payload: {
        action: "endpoint_disabled",
        transactionType: "notice",
        webhookId: null,
        eventId: "event-1",
        receiver: "https://hooks.example.com:8443",
        failingSince: "2026-04-26T12:00:00.000Z",
        disabledAt: "2026-05-01T12:00:00.000Z",
      },
    });
  });
});
