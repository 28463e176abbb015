/** Decimals of latitude and longitude on chain (TicketRegistry.COORDINATE_DECIMALS). */
export const COORDINATE_DECIMALS = 7;

const SCALE = 10 ** COORDINATE_DECIMALS;

/** Degrees as the registry's int32 fixed point, rounded to the nearest 10^-7 degree (about 1 cm). */
export function toFixedCoordinate(degrees: number, limit: 90 | 180): number {
  if (!Number.isFinite(degrees) || Math.abs(degrees) > limit) {
    throw new RangeError(`coordinate must be a number from -${limit} to ${limit}, got ${degrees}`);
  }
  return Math.sign(degrees) * Math.round(Math.abs(degrees) * SCALE) || 0;
}

/** The registry's int32 fixed point as degrees. */
export function fromFixedCoordinate(fixed: bigint | number): number {
  return Number(fixed) / SCALE;
}
