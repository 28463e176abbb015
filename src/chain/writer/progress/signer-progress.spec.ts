import { Logger } from "@nestjs/common";
import type { Counter, Gauge } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { AppConfig } from "../../../config/app-config";
import type { SignedTransaction } from "../signed-transaction";
import { SignerProgress } from "./signer-progress";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const STUCK_AFTER_MS = 120_000;

function tracker() {
  const refusals: Record<string, number> = {};
  const gauge: Record<string, number> = {};
  const counter = { inc: (labels: { signer: string; reason: string }) => (refusals[labels.reason] = (refusals[labels.reason] ?? 0) + 1) };
  const stuckGauge = { set: (labels: { signer: string }, value: number) => (gauge[labels.signer] = value) };
  const config = { chain: { writer: { signerStuckAfterMs: STUCK_AFTER_MS } } } as unknown as AppConfig;
  const progress = new SignerProgress(config, counter as unknown as Counter<string>, stuckGauge as unknown as Gauge<string>);
  return { progress, refusals, gauge };
}

const tx = { signer: SIGNER, nonce: 4n, hash: "0x01" } as SignedTransaction;
let warn: ReturnType<typeof vi.spyOn>;
let log: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  warn = vi.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
  log = vi.spyOn(Logger.prototype, "log").mockImplementation(() => undefined);
});

afterEach(() => vi.restoreAllMocks());

describe("SignerProgress", () => {
  it("is stuck after 3 refused broadcasts in a row, with the refusal class, and clears on an accepted one; logs each change once", () => {
    const { progress, refusals, gauge } = tracker();
    progress.broadcastResult(tx, { accepted: false, refusal: "txpool is full" });
    progress.broadcastResult(tx, { accepted: false, refusal: "txpool is full" });
    expect(progress.stuck()).toEqual([]);
    expect(gauge[SIGNER]).toBe(0);
    progress.broadcastResult(tx, { accepted: false, refusal: "txpool is full" });
    progress.broadcastResult(tx, { accepted: false, refusal: "txpool is full" });
    expect(progress.stuck()).toMatchObject([{ signer: SIGNER, reason: "last 4 broadcasts refused: txpool is full" }]);
    expect(gauge[SIGNER]).toBe(1);
    expect(refusals).toEqual({ "txpool is full": 4 });
    expect(warn).toHaveBeenCalledTimes(1);

    progress.broadcastResult(tx, { accepted: true, refusal: null });
    expect(progress.stuck()).toEqual([]);
    expect(gauge[SIGNER]).toBe(0);
    expect(log).toHaveBeenCalledTimes(1);
  });

  it("does not count a broadcast that got no answer as a refusal, and counts an already known one as accepted", () => {
    const { progress, refusals } = tracker();
    for (let i = 0; i < 5; i++) progress.broadcastResult(tx, { accepted: false, refusal: null });
    progress.broadcastResult(tx, { accepted: false, refusal: "nonce too low" });
    progress.broadcastResult(tx, { accepted: false, refusal: "nonce too low" });
    progress.broadcastResult(tx, { accepted: true, refusal: "already known" });
    progress.broadcastResult(tx, { accepted: false, refusal: "nonce too low" });
    expect(progress.stuck()).toEqual([]);
    expect(refusals).toEqual({ "nonce too low": 3, "already known": 1 });
  });

  it("is stuck while the oldest in-flight nonce stays unmined past SIGNER_STUCK_AFTER_MS, and clears once it is mined", () => {
    const { progress, gauge } = tracker();
    const signedAt = new Date("2026-01-01T00:00:00Z");
    const at = (ms: number) => new Date(signedAt.getTime() + ms);
    progress.oldestUnmined(SIGNER, { nonce: 4n, signedAt }, at(1_000));
    expect(progress.stuck(at(STUCK_AFTER_MS))).toEqual([]);
    expect(progress.stuck(at(STUCK_AFTER_MS + 5_000))).toMatchObject([{ signer: SIGNER, reason: "nonce 4 unmined for 125 s" }]);
    expect(gauge[SIGNER]).toBe(1);

    // Nonce 4 mined: nonce 5, signed long ago, waits from now on.
    progress.oldestUnmined(SIGNER, { nonce: 5n, signedAt }, at(STUCK_AFTER_MS + 6_000));
    expect(progress.stuck(at(STUCK_AFTER_MS + 7_000))).toEqual([]);
    expect(gauge[SIGNER]).toBe(0);
    expect(progress.stuck(at(2 * STUCK_AFTER_MS + 7_000))).toMatchObject([{ reason: "nonce 5 unmined for 121 s" }]);
    progress.oldestUnmined(SIGNER, null, at(2 * STUCK_AFTER_MS + 8_000));
    expect(progress.stuck(at(3 * STUCK_AFTER_MS))).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(log).toHaveBeenCalledTimes(2);
  });
});
