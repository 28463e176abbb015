import { randomInt, randomUUID } from "node:crypto";

/** The version nibble and each 12-bit counter as hex: "7abc". */
const SEQUENCES = Array.from({ length: 0x1000 }, (_, counter) => (0x7000 | counter).toString(16));

/**
 * A generator of time-ordered UUIDs (RFC 9562 version 7) reading `clock`, with its own ordering
 * state: ids it gave out never sort after later ones, even when the clock steps back.
 */
export function uuidv7Generator(clock: () => number = () => Date.now()): () => string {
  let lastMs = 0;
  let counter = 0;
  // The time's part of the id, formatted once per millisecond: a /stream request takes two ids per sale.
  let prefixMs = -1;
  let prefix = "";
  return () => {
    const now = clock();
    if (now > lastMs) {
      lastMs = now;
      counter = randomInt(0x400);
    } else {
      counter = (counter + 1) & 0xfff;
      if (counter === 0) lastMs += 1;
    }
    if (prefixMs !== lastMs) {
      prefixMs = lastMs;
      const time = lastMs.toString(16).padStart(12, "0");
      prefix = `${time.slice(0, 8)}-${time.slice(8)}-`;
    }
    // randomUUID draws from a cached entropy pool: its variant and 62 random bits are reused as is.
    return prefix + SEQUENCES[counter] + randomUUID().slice(18);
  };
}

/**
 * A time-ordered UUID (RFC 9562 version 7). Ids written in bulk land at the end of their index
 * instead of at random places in it, which is what keeps large acceptances fast; within one
 * millisecond a counter keeps them in generation order.
 */
export const uuidv7: () => string = uuidv7Generator();
