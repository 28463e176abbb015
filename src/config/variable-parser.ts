import { parseEther } from "ethers";

import type { EnvReader } from "./env-reader";

/**
 * Typed values from raw variables, each with its default and bounds. A bad value is a problem,
 * noted and replaced by the default: every problem is collected before failing, so one boot shows
 * all of them.
 */
export class VariableParser {
  readonly problems: string[] = [];

  constructor(private readonly env: EnvReader) {}

  string(name: string, fallback: string): string {
    return this.env.raw(name) ?? fallback;
  }

  optional(name: string): string | null {
    return this.env.raw(name);
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.env.raw(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) return this.refuse(`${name} must be an integer from ${min} to ${max}, got "${raw}"`, fallback);
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.env.raw(name);
    if (raw === null) return fallback;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    return this.refuse(`${name} must be true or false, got "${raw}"`, fallback);
  }

  /** A decimal number such as 0.01. */
  decimal(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env.raw(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) return this.refuse(`${name} must be a number from ${min} to ${max}, got "${raw}"`, fallback);
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.env.raw(name);
    if (raw === null) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    return this.refuse(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`, fallback);
  }

  /** Comma-separated, blanks dropped. */
  list(name: string): string[] {
    return (this.env.raw(name) ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  }

  url(name: string, fallback: string | null, protocols: string[]): string | null {
    const raw = this.env.raw(name) ?? fallback;
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
    } catch {
      // Not echoed: a URL may carry a password.
      this.problems.push(`${name} must be a URL`);
    }
    return raw;
  }

  /** An amount of the chain's native coin with up to 18 decimals ("0.5"), in wei; 0 when unset. */
  coinAmount(name: string): bigint {
    const raw = this.env.raw(name);
    if (raw === null) return 0n;
    if (!/^\d+(\.\d{1,18})?$/.test(raw)) return this.refuse(`${name} must be an amount of the native coin such as 0.5 (at most 18 decimals), got "${raw}"`, 0n);
    return parseEther(raw);
  }

  private refuse<T>(problem: string, fallback: T): T {
    this.problems.push(problem);
    return fallback;
  }
}
