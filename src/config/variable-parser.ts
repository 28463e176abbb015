import { parseEther, parseUnits } from "ethers";

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

  /** Comma-separated URLs, each checked like url(); empty when unset. */
  urlList(name: string, protocols: string[]): string[] {
    const urls = this.list(name);
    for (const [index, raw] of urls.entries()) {
      try {
        const parsed = new URL(raw);
        if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} entry ${index + 1} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      } catch {
        // Not echoed: a URL may carry a password or an API key.
        this.problems.push(`${name} entry ${index + 1} must be a URL`);
      }
    }
    return urls;
  }

  /** An amount of gwei with up to 9 decimals ("25", "0.5"), in wei; null when unset. */
  gwei(name: string): bigint | null {
    const raw = this.env.raw(name);
    if (raw === null) return null;
    if (!/^\d+(\.\d{1,9})?$/.test(raw)) return this.refuse(`${name} must be an amount of gwei such as 25 or 1.5 (at most 9 decimals), got "${raw}"`, null);
    return parseUnits(raw, "gwei");
  }

  /** A JSON object of HTTP header names and string values; {} when unset. Values are secrets: never echoed. */
  headers(name: string): Record<string, string> {
    const raw = this.env.raw(name);
    if (raw === null) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.refuse(`${name} must be a JSON object of header names and values, such as {"x-api-key":"..."}`, {});
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return this.refuse(`${name} must be a JSON object of header names and values`, {});
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) this.problems.push(`${name}: "${header}" is not a valid header name`);
      else if (typeof value !== "string" || /[\r\n\0]/.test(value)) this.problems.push(`${name}: the value of "${header}" must be a string on one line`);
      else headers[header.toLowerCase()] = value;
    }
    return headers;
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
