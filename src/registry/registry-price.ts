/** Decimals of prices on chain (TicketRegistry.PRICE_DECIMALS). */
export const PRICE_DECIMALS = 6;

const PRICE_PATTERN = /^(\d+)(?:\.(\d+))?$/;
const DIGITS_LIMIT = 1n << 120n;
const UINT96_MAX = (1n << 96n) - 1n;

export class PriceFormatError extends Error {
  constructor(
    readonly price: string,
    readonly reason: string,
  ) {
    super(`price "${price}" ${reason}`);
    this.name = "PriceFormatError";
  }
}

/**
 * The wire form of a decimal price string: decimal places in the top byte, digits in the low 120
 * bits. It carries the string exactly; the registry decides whether it fits its fixed point.
 */
export function encodePrice(price: string): bigint {
  const { digits, scale } = parsePrice(price);
  return (BigInt(scale) << 120n) | digits;
}

/**
 * The price as the registry records it (an integer of 10^-6 units), or a PriceFormatError when the
 * string is not a non-negative decimal, has non-zero digits past the sixth decimal place, or
 * exceeds the registry's uint96.
 */
export function registryPriceOf(price: string): bigint {
  const { digits, scale } = parsePrice(price);
  let units: bigint;
  if (scale <= PRICE_DECIMALS) {
    units = digits * 10n ** BigInt(PRICE_DECIMALS - scale);
  } else {
    const divisor = 10n ** BigInt(scale - PRICE_DECIMALS);
    if (digits % divisor !== 0n) {
      throw new PriceFormatError(price, `has more than ${PRICE_DECIMALS} significant decimal places`);
    }
    units = digits / divisor;
  }
  if (units > UINT96_MAX) throw new PriceFormatError(price, "is larger than the registry can record");
  return units;
}

/** A registry price (10^-6 units) as a decimal string with two to six decimal places: "12.50", "0.000001". */
export function registryPriceText(units: bigint): string {
  const scale = 10n ** BigInt(PRICE_DECIMALS);
  const fraction = (units % scale).toString().padStart(PRICE_DECIMALS, "0").replace(/0+$/, "");
  return `${units / scale}.${fraction.padEnd(2, "0")}`;
}

function parsePrice(price: string): { digits: bigint; scale: number } {
  const match = PRICE_PATTERN.exec(price);
  if (!match) throw new PriceFormatError(price, "is not a non-negative decimal number such as 12.50");
  const fraction = match[2] ?? "";
  if (fraction.length > 255) throw new PriceFormatError(price, "has too many decimal places");
  const digits = BigInt(match[1] + fraction);
  if (digits >= DIGITS_LIMIT) throw new PriceFormatError(price, "has too many digits");
  return { digits, scale: fraction.length };
}

/** Why `value` is not a price the registry can record exactly, or null if it is one. */
export function priceProblem(value: unknown): string | null {
  if (typeof value !== "string") return 'must be a decimal string such as "12.50"';
  try {
    registryPriceOf(value);
    return null;
  } catch (error) {
    if (error instanceof PriceFormatError) return error.reason;
    throw error;
  }
}
