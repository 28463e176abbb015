/**
 * The most levels of arrays and objects a JSON body may nest. The deepest body an endpoint takes
 * nests 3 (a /stream array, an action, its data); unknown fields are ignored, so an integrator's own
 * nested data may ride along, and 32 leaves it room while a refused body costs a scan of its bytes.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }

/**
 * Whether the JSON text in `bytes` (UTF-8) opens arrays and objects more than `maxDepth` levels
 * deep, read before JSON.parse builds anything: a 16 MiB body of 8 million nested arrays in an
 * ignored field made JSON.parse build 8 million arrays (seconds of a blocked event loop, and the
 * process kept the 1.5 GB it grew by); this stops at the first bracket past the limit. One pass
 * over the bytes, brackets inside strings skipped (a backslash in a string escapes the byte after
 * it). UTF-8 never uses these ASCII bytes inside a multi-byte character, so bytes are read as they
 * come. Text that is not JSON is left to JSON.parse to refuse; this only counts.
 *
 * Hand-written: no maintained package limits the depth of JSON.parse, and a JavaScript parser that
 * counts depth as it goes takes several times JSON.parse's time on the bodies that are fine. This
 * loop reads 1 to 3 ns a byte: 17 ms for a 16 MiB body of one string, 24 ms for 5000 maximal
 * newEvent actions (8.4 MB, JSON.parse 440 ms). Skipping strings with Buffer#indexOf instead was
 * faster on one long string but slower on many short ones (a native call per string: 15 ms for
 * 5000 soldTicket actions, against 0.4 ms here).
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (inString) {
      if (byte === BACKSLASH) index++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      // A closer with nothing open: not JSON, and JSON.parse refuses it there, before any deeper bracket.
      if (--depth < 0) return false;
    }
  }
  return false;
}
