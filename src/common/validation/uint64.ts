export const UINT64_MAX = (1n << 64n) - 1n;

/**
 * An unsigned 64-bit integer arrives as a JSON number up to 2^53 - 1 (beyond that JSON numbers lose
 * digits in transit, so they are refused) or as a decimal string up to 2^64 - 1.
 */
export function isUint64Input(value: unknown): value is number | string {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0;
  if (typeof value === "string") return /^(0|[1-9]\d{0,19})$/.test(value) && BigInt(value) <= UINT64_MAX;
  return false;
}

export function toUint64(value: number | string): bigint {
  return BigInt(value);
}

export function uint64Problem(value: unknown): string {
  if (typeof value === "number" && Number.isInteger(value) && value > Number.MAX_SAFE_INTEGER) {
    return "is above 2^53 - 1: send integers this large as decimal strings";
  }
  return "must be an unsigned 64-bit integer (a JSON number up to 2^53 - 1, or a decimal string up to 18446744073709551615)";
}

/** A uint64 for a JSON answer: a number while exact, a decimal string beyond 2^53 - 1. */
export function uint64Json(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}
