import { afterEach, describe, expect, it } from "vitest";

import type { AppConfig } from "../../config/app-config";
import type { AttemptResult, CallbackOutboxStore, ClaimedCallback, ReceiverShares } from "../callback-outbox.store";
import type { WebhookSecretsService } from "../secrets/webhook-secrets.service";
import type { CallbackDelivery, FinishedAttempt } from "./callback-delivery";
import { CallbackDispatcher } from "./callback-dispatcher";
import type { DeliveryMetrics } from "./delivery-metrics";
import { SYSTEM_CLOCK } from "../../common/clock";
import type { ReceiverHealthStore } from "../webhooks/receiver-health.store";

const RECEIVER = "https://hooks.example.com";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An outbox of `count` due callbacks to one receiver, claimed as the SQL claims them (no more than
 * the receiver's room, none for a full receiver), each claim taking `claimMs`. Recording waits
 * until `releaseRecords` is called: the dispatcher gets no wake-up from a recorded batch.
 */
function fakeOutbox(count: number, claimMs: number) {
  let next = 0;
  let releaseRecords!: () => void;
  const recordsHeld = new Promise<void>((resolve) => (releaseRecords = resolve));
  const claims: number[] = [];
  const outbox = {
    claimDue: async (limit: number, _leaseMs: number, shares: ReceiverShares): Promise<ClaimedCallback[]> => {
      const room = shares.full.includes(RECEIVER) ? 0 : (shares.inFlight.find((entry) => entry.receiver === RECEIVER)?.room ?? shares.idleRoom);
      const take = Math.min(limit, room, count - next);
      await sleep(claimMs);
      claims.push(take);
      return Array.from({ length: take }, () => {
        const id = `callback-${next++}`;
        return {
          id,
          actionId: id,
          requestId: null,
          organizationId: "org",
          webhookId: null,
          eventRef: "event",
          payload: {},
          attempts: 0,
          callbackUrl: `${RECEIVER}/hooks`,
          createdAt: new Date(),
          leaseEndsAt: Date.now() + 60_000,
        };
      });
    },
    recordAttempts: async (_results: readonly AttemptResult[]) => recordsHeld,
    closeClaims: async () => undefined,
  };
  return { outbox: outbox as unknown as CallbackOutboxStore, claims, releaseRecords };
}

function dispatcherWith(outbox: CallbackOutboxStore, deliveryMs: number, attempted: string[]): CallbackDispatcher {
  const delivery = {
    attempt: async (callback: ClaimedCallback): Promise<FinishedAttempt> => {
      await sleep(deliveryMs);
      attempted.push(callback.id);
      return { callback, startedAt: new Date(), answer: { statusCode: 204, error: null, durationMs: deliveryMs, retryAfter: undefined } };
    },
  } as unknown as CallbackDelivery;
  const secrets = { activeSecrets: async (ids: readonly string[]) => new Map(ids.map((id) => [id, ["secret"]])) } as unknown as WebhookSecretsService;
  // A poll far beyond the test's time: only a claim made at once delivers everything in time.
  const config = {
    callbacks: { deliver: true, concurrency: 10, leaseMs: 60_000, pollMs: 600_000, maxAttempts: 12, retryScale: 1, disableAfterHours: 120 },
  } as unknown as AppConfig;
  const metrics = { attempted: () => undefined } as unknown as DeliveryMetrics;
  const health = { apply: async () => [] } as unknown as ReceiverHealthStore;
  return new CallbackDispatcher(outbox, secrets, delivery, config, metrics, health, SYSTEM_CLOCK);
}

let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("CallbackDispatcher", () => {
  it("claims again at once when deliveries finish while a claim runs, without waiting for a poll or a recorded batch", async () => {
    // One receiver gets 5 of the 10 slots; each claim takes longer than the deliveries it follows.
    const { outbox, claims, releaseRecords } = fakeOutbox(40, 20);
    const attempted: string[] = [];
    const dispatcher = dispatcherWith(outbox, 5, attempted);
    stop = async () => {
      releaseRecords();
      await dispatcher.beforeApplicationShutdown();
    };
    dispatcher.onApplicationBootstrap();

    const deadline = Date.now() + 5_000;
    while (attempted.length < 40 && Date.now() < deadline) await sleep(10);

    expect(attempted).toHaveLength(40);
    expect(new Set(attempted).size).toBe(40);
    // Never more than the receiver's share (half the slots) in one claim.
    expect(Math.max(...claims)).toBeLessThanOrEqual(5);
  });
});
