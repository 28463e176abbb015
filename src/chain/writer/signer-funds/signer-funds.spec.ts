import { describe, expect, it } from "vitest";

import { uuidv7Generator } from "../../../common/uuid-v7";
import { loadConfig } from "../../../config/app-config";
import { fundsChanges, fundsNeeded, type SignerFunds } from "./signer-funds";
import { uuidv7Floor } from "./signer-usage.store";

const GWEI = 1_000_000_000n;

describe("fundsNeeded", () => {
  it("prices the last hour's gas at the current maxFeePerGas", () => {
    expect(fundsNeeded({ gasLastHour: 40_000_000n, floorGas: 15_000_000n, maxFeePerGas: 30n * GWEI, minimumWei: 0n })).toBe(40_000_000n * 30n * GWEI);
  });

  it("asks for one full batch at least, even with no traffic", () => {
    expect(fundsNeeded({ gasLastHour: 0n, floorGas: 15_000_000n, maxFeePerGas: 30n * GWEI, minimumWei: 0n })).toBe(15_000_000n * 30n * GWEI);
    expect(fundsNeeded({ gasLastHour: 200_000n, floorGas: 15_000_000n, maxFeePerGas: 2n, minimumWei: 0n })).toBe(30_000_000n);
  });

  it("never asks for less than the configured minimum", () => {
    const minimumWei = 10n ** 18n;
    expect(fundsNeeded({ gasLastHour: 0n, floorGas: 15_000_000n, maxFeePerGas: GWEI, minimumWei })).toBe(minimumWei);
    expect(fundsNeeded({ gasLastHour: 10n ** 9n, floorGas: 15_000_000n, maxFeePerGas: 100n * GWEI, minimumWei })).toBe(10n ** 20n);
  });
});

const signer = (address: string, short: boolean): SignerFunds => ({
  address,
  short,
  balanceWei: 1n,
  neededWei: 2n,
  gasLastHour: 0n,
  nonces: { chainLatest: 0, chainPending: 0, ledgerNext: null },
});

describe("fundsChanges", () => {
  it("reports a signer short at the first check, not a funded one", () => {
    expect(fundsChanges(null, [signer("0xA", true), signer("0xB", false)])).toEqual([{ address: "0xA", nowShort: true }]);
  });

  it("reports a signer once when it falls short and once when it is funded again", () => {
    const short = [signer("0xA", true), signer("0xB", false)];
    expect(fundsChanges(short, short)).toEqual([]);
    expect(fundsChanges(short, [signer("0xA", false), signer("0xB", true)])).toEqual([
      { address: "0xA", nowShort: false },
      { address: "0xB", nowShort: true },
    ]);
  });
});

describe("uuidv7Floor", () => {
  it("sorts before every UUIDv7 made at or after its millisecond and after those made before", () => {
    // A generator of its own, on a clock of its own: the shared one never goes back in time, and a
    // fake clock ahead of the real one would leave it there for the specs after this one.
    const ms = 2_000_000_000_000;
    let now = ms - 1;
    const next = uuidv7Generator(() => now);
    const before = next();
    now = ms;
    const at = next();
    now = ms + 1;
    const after = next();
    const floor = uuidv7Floor(ms);
    expect([after, at, floor, before].sort()).toEqual([before, floor, at, after]);
    expect(floor).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
  });
});

describe("signer funds configuration", () => {
  it("checks every minute with no minimum by default", () => {
    expect(loadConfig({}).chain.funds).toEqual({ checkIntervalMs: 60_000, minimumWei: 0n });
  });

  it("takes the minimum in the native coin, exactly", () => {
    expect(loadConfig({ SIGNER_MIN_BALANCE: "0.5", SIGNER_FUNDS_CHECK_MS: "5000" }).chain.funds).toEqual({
      checkIntervalMs: 5_000,
      minimumWei: 5n * 10n ** 17n,
    });
    expect(loadConfig({ SIGNER_MIN_BALANCE: "1.000000000000000001" }).chain.funds.minimumWei).toBe(10n ** 18n + 1n);
  });

  it("refuses amounts it cannot read exactly, and intervals out of range", () => {
    expect(() => loadConfig({ SIGNER_MIN_BALANCE: "1e18" })).toThrow(
      'SIGNER_MIN_BALANCE must be an amount of the native coin such as 0.5 (at most 18 decimals), got "1e18"',
    );
    expect(() => loadConfig({ SIGNER_MIN_BALANCE: "0.0000000000000000001" })).toThrow("at most 18 decimals");
    expect(() => loadConfig({ SIGNER_FUNDS_CHECK_MS: "10" })).toThrow("SIGNER_FUNDS_CHECK_MS must be an integer from 100 to 3600000");
  });
});
