import { beforeAll, describe, expect, it } from "vitest";

import { ApiError } from "../../common/errors/api-error";
import { allowPrivateCallbackHosts } from "../../common/validation/callback-target";
import { newWebhookOf, webhookChangesOf } from "./webhook-input";

/** The error a body is refused with: the status and the error body's detail. */
function refusal(parse: () => unknown): { status: number; code: string; field?: string; message: string } {
  try {
    parse();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, ...error.detail };
    throw error;
  }
  throw new Error("the body was accepted");
}

beforeAll(() => allowPrivateCallbackHosts([]));

describe("POST /api/v1/webhooks's body", () => {
  it("takes a url alone (every action, blank description), ignores unknown fields", () => {
    expect(newWebhookOf({ url: "https://hooks.example.com/registry", colour: "blue" })).toEqual({
      url: "https://hooks.example.com/registry",
      actions: null,
      description: "",
    });
    expect(newWebhookOf({ url: "https://hooks.example.com/", actions: ["scanned"], description: "doors" })).toEqual({
      url: "https://hooks.example.com/",
      actions: ["scanned"],
      description: "doors",
    });
  });

  it("refuses the urls a callbackUrl may not be, naming the field", () => {
    for (const url of [
      "http://hooks.example.com/",
      "https://localhost/hooks",
      "https://10.0.0.8/hooks",
      "https://[::1]/hooks",
      "https://169.254.169.254/latest",
      "https://user:pass@hooks.example.com/",
      `https://hooks.example.com/${"x".repeat(255)}`,
      "not a url",
    ]) {
      expect(
        refusal(() => newWebhookOf({ url })),
        url,
      ).toMatchObject({ status: 400, code: "invalid_field", field: "url" });
    }
    expect(refusal(() => newWebhookOf({ actions: ["sold"] }))).toMatchObject({ code: "invalid_field", field: "url" });
  });

  it("names an unknown action in the filter", () => {
    const refused = refusal(() => newWebhookOf({ url: "https://hooks.example.com/", actions: ["scanned", "checkin"] }));
    expect(refused).toMatchObject({ status: 400, code: "invalid_field", field: "actions" });
    expect(refused.message).toMatch(/^actions\[1\] "checkin" is not a callback action/);
  });

  it("refuses a body that is not an object, and a description past 255 characters", () => {
    expect(refusal(() => newWebhookOf(["https://hooks.example.com/"]))).toMatchObject({ status: 400, code: "invalid_body" });
    expect(refusal(() => newWebhookOf({ url: "https://hooks.example.com/", description: "d".repeat(256) }))).toMatchObject({ field: "description" });
  });
});

describe("PATCH /api/v1/webhooks/{webhookId}'s body", () => {
  it("takes the fields sent, and actions: null for every action", () => {
    expect(webhookChangesOf({ enabled: true })).toEqual({ enabled: true });
    expect(webhookChangesOf({ actions: null, description: "all again" })).toEqual({ actions: null, description: "all again" });
    expect(webhookChangesOf({ url: "https://new.example.com/", actions: ["sold"], enabled: false })).toEqual({
      url: "https://new.example.com/",
      actions: ["sold"],
      enabled: false,
    });
  });

  it("refuses nothing to change, and names a bad field", () => {
    expect(refusal(() => webhookChangesOf({}))).toMatchObject({ status: 400, code: "invalid_body" });
    expect(refusal(() => webhookChangesOf({ enabled: "yes" }))).toMatchObject({ code: "invalid_field", field: "enabled" });
    expect(refusal(() => webhookChangesOf({ url: "https://192.168.1.1/" }))).toMatchObject({ code: "invalid_field", field: "url" });
    expect(refusal(() => webhookChangesOf({ actions: [] }))).toMatchObject({ code: "invalid_field", field: "actions" });
  });
});
