import type { Logger } from "@nestjs/common";
import { describe, expect, it } from "vitest";

import type { ClaimedCallback } from "../callback-outbox.store";
import type { JudgedAttempt } from "../delivery/callback-delivery";
import type { DisabledReceiver, Notice } from "./notices";
import { exhaustedNotices, healthReportOf, ReceiverHealth } from "./receiver-health";
import type { HealthReport } from "./receiver-health.store";

const NOW = new Date("2026-05-01T12:00:00Z");
const HOUR = 3_600_000;

function attempt(
  receiver: { webhookId: string } | { eventRef: string },
  status: JudgedAttempt["status"],
  { statusCode = 500, attempts = 0, actionId = "action-1" }: { statusCode?: number; attempts?: number; actionId?: string | null } = {},
): JudgedAttempt {
  const callback = {
    id: `callback-${Math.random()}`,
    actionId,
    requestId: null,
    organizationId: "org-1",
    webhookId: "webhookId" in receiver ? receiver.webhookId : null,
    eventRef: "eventRef" in receiver ? receiver.eventRef : null,
    payload: { action: "sold", eventId: "event-1", ticketId: "ticket-1" },
    attempts,
    callbackUrl: "https://hooks.example.com/h",
    createdAt: NOW,
    leaseEndsAt: 0,
  } satisfies ClaimedCallback;
  return { callback, startedAt: NOW, answer: { statusCode, error: null, durationMs: 3, retryAfter: undefined }, status, nextAttemptAt: null };
}

describe("what a batch of attempts says of its receivers", () => {
  it("counts a receiver delivered to once as delivered, one failed at every attempt as failed, endpoints and callbackUrls apart", () => {
    const batch = [
      attempt({ webhookId: "w-up" }, "pending"),
      attempt({ webhookId: "w-up" }, "delivered", { statusCode: 204 }),
      attempt({ webhookId: "w-down" }, "pending"),
      attempt({ webhookId: "w-down" }, "failed", { statusCode: 410 }),
      attempt({ eventRef: "e-down" }, "pending"),
      attempt({ eventRef: "e-up" }, "delivered", { statusCode: 200 }),
    ];

    const report = healthReportOf(batch, NOW, 120);

    expect(report).toEqual({
      now: NOW,
      cutoff: new Date(NOW.getTime() - 120 * HOUR),
      delivered: { webhooks: ["w-up"], events: ["e-up"] },
      failed: { webhooks: ["w-down"], events: ["e-down"] },
      pending: [batch[0], batch[2], batch[4]].map(({ callback }) => callback.id),
    });
  });

  it("sends callback_exhausted for a callback failed at its last attempt only: not for a 410, one with attempts left, or a notice", () => {
    const exhausted = attempt({ webhookId: "w-1" }, "failed", { attempts: 11, statusCode: 503 });
    const batch = [
      exhausted,
      attempt({ webhookId: "w-1" }, "failed", { attempts: 3, statusCode: 410 }),
      attempt({ webhookId: "w-1" }, "pending", { attempts: 5 }),
      attempt({ webhookId: "w-1" }, "failed", { attempts: 11, actionId: null }),
    ];

    const notices = exhaustedNotices(batch, 12, NOW);

    expect(notices).toEqual([
      {
        organizationId: "org-1",
        aboutWebhookId: "w-1",
        payload: {
          action: "callback_exhausted",
          transactionType: "notice",
          callbackId: exhausted.callback.id,
          webhookId: "w-1",
          eventId: "event-1",
          ticketId: "ticket-1",
          actionPromise: "action-1",
          exhaustedAction: "sold",
          attempts: 12,
          lastStatusCode: 503,
          lastError: null,
          exhaustedAt: NOW.toISOString(),
        },
      },
    ]);
  });
});

describe("ReceiverHealth", () => {
  it("reports by the injected clock, and counts and logs each receiver the store disabled", async () => {
    const applied: { report: HealthReport; notices: readonly Notice[] }[] = [];
    const disabled: DisabledReceiver[] = [
      { organizationId: "org-1", webhookId: "w-1", eventRef: null, eventId: null, url: "https://a.example.com/x?t=1", failingSince: NOW, disabledAt: NOW },
      { organizationId: "org-1", webhookId: null, eventRef: "e-1", eventId: "event-1", url: "https://b.example.com/", failingSince: NOW, disabledAt: NOW },
    ];
    const store = {
      apply: async (report: HealthReport, notices: readonly Notice[]) => {
        applied.push({ report, notices });
        return disabled;
      },
    };
    const counted: string[] = [];
    const warnings: [Record<string, unknown>, string][] = [];
    const logger = { warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]) } as unknown as Logger;
    const later = new Date(NOW.getTime() + 500 * HOUR);
    const health = new ReceiverHealth(store, { now: () => later }, { disableAfterHours: 48, maxAttempts: 12 }, (receiver) => counted.push(receiver), logger);

    await health.record([attempt({ webhookId: "w-1" }, "pending")]);

    expect(applied[0].report).toMatchObject({ now: later, cutoff: new Date(later.getTime() - 48 * HOUR) });
    expect(counted).toEqual(["webhook", "callback_url"]);
    expect(warnings.map(([, message]) => message)).toEqual([
      expect.stringMatching(/^webhook endpoint w-1 disabled: every attempt failed since /),
      expect.stringMatching(/^the callbackUrl of event event-1 disabled/),
    ]);
    // The receiver's origin only: a path or query may hold the receiver's own token.
    expect(warnings[0][0]).toMatchObject({ organizationId: "org-1", webhookId: "w-1", receiver: "https://a.example.com" });
  });

  it("asks nothing of the store for an empty batch", async () => {
    const health = new ReceiverHealth(
      { apply: () => Promise.reject(new Error("not expected")) },
      { now: () => NOW },
      { disableAfterHours: 120, maxAttempts: 12 },
      () => undefined,
      {} as Logger,
    );
    await expect(health.record([])).resolves.toBeUndefined();
  });
});
