import { Injectable, type OnApplicationShutdown } from "@nestjs/common";

import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import type { ClaimedCallback } from "../callback-outbox.store";
import { CallbackHttp, type DeliveryAnswer } from "./callback-http";
import { signedHeaders } from "./callback-signing";
import { retryAfterMs, retryDelayMs } from "./retry-schedule";

/** An attempt that has its answer, waiting to be recorded. */
export interface FinishedAttempt {
  callback: ClaimedCallback;
  answer: DeliveryAnswer;
  startedAt: Date;
}

/** What an attempt makes of its callback. */
export interface AttemptOutcome {
  status: "delivered" | "failed" | "pending";
  /** When a pending callback is tried again. */
  nextAttemptAt: Date | null;
}

/** A finished attempt and what it made of its callback. */
export type JudgedAttempt = FinishedAttempt & AttemptOutcome;

/** The callbacks' settings that decide whether and when a failed attempt is retried. */
export type RetryPolicy = Pick<AppConfig["callbacks"], "maxAttempts" | "retryScale">;

/** One attempt at a callback: its body signed with every active secret of its organization, POSTed once. */
@Injectable()
export class CallbackDelivery implements OnApplicationShutdown {
  private readonly http: CallbackHttp;
  /** How long before its lease's end an attempt must have its connection. */
  private readonly startWithin: number;

  constructor(@InjectConfig() config: AppConfig) {
    const { timeoutMs, leaseMs, allowHosts, dnsServers, dnsTimeoutMs } = config.callbacks;
    this.http = new CallbackHttp({ timeoutMs, allowHosts, dns: { servers: dnsServers, timeoutMs: dnsTimeoutMs } });
    this.startWithin = timeoutMs + leaseMarginMs(leaseMs, timeoutMs);
  }

  /** Never throws: whatever goes wrong is the attempt's answer. */
  async attempt(callback: ClaimedCallback, secrets: readonly string[]): Promise<FinishedAttempt> {
    const startedAt = new Date();
    return { callback, startedAt, answer: await this.send(callback, secrets, startedAt) };
  }

  /** After the dispatcher's beforeApplicationShutdown: the deliveries in flight have finished. */
  onApplicationShutdown(): void {
    this.http.close();
  }

  private async send(callback: ClaimedCallback, secrets: readonly string[], startedAt: Date): Promise<DeliveryAnswer> {
    if (secrets.length === 0) return { statusCode: null, error: "the organization has no webhook secret to sign with", durationMs: 0, retryAfter: undefined };
    const body = JSON.stringify(callback.payload);
    try {
      const startBy = callback.leaseEndsAt - this.startWithin;
      return await this.http.post(callback.callbackUrl, body, signedHeaders(callback.id, body, secrets, startedAt), startBy);
    } catch (error) {
      // Signing can throw (a secret that is not base64): a failed attempt, not a crashed worker.
      return { statusCode: null, error: `could not send: ${(error as Error).message}`, durationMs: Date.now() - startedAt.getTime(), retryAfter: undefined };
    }
  }
}

/**
 * The time an attempt keeps between its answer and its lease's end, for its result to be recorded
 * (results go in batches) before another worker could claim the callback again: a tenth of the time
 * the lease leaves beyond the timeout, at most 5 s (4.5 s with the default lease and timeout).
 */
export function leaseMarginMs(leaseMs: number, timeoutMs: number): number {
  return Math.min(5_000, Math.floor((leaseMs - timeoutMs) / 10));
}

/** 2xx delivers; 410 stops; anything else is retried on the schedule (Retry-After honoured) until the attempts run out. */
export function attemptOutcome({ callback, answer }: FinishedAttempt, policy: RetryPolicy, now = Date.now(), random = Math.random): AttemptOutcome {
  const code = answer.statusCode;
  if (code !== null && code >= 200 && code < 300) return { status: "delivered", nextAttemptAt: null };
  const attempts = callback.attempts + 1;
  if (code === 410 || attempts >= policy.maxAttempts) return { status: "failed", nextAttemptAt: null };
  const asked = code === 429 || code === 503 ? retryAfterMs(answer.retryAfter, now) : null;
  return { status: "pending", nextAttemptAt: new Date(now + Math.max(retryDelayMs(attempts, random, policy.retryScale), asked ?? 0)) };
}
