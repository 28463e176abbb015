/** Limit of the API's string fields, in characters: Unicode code points (𝄞 counts once, a combining mark on its own). */
export const MAX_TEXT_LENGTH = 255;

/**
 * The most UTF-8 bytes a string field within MAX_TEXT_LENGTH can take (four per code point): what
 * reaches the chain per string, far below the 65,535 bytes the batch format's 2-byte length allows.
 */
export const MAX_TEXT_UTF8_BYTES = MAX_TEXT_LENGTH * 4;

/** Limit of the API's long text fields (a ticket's or an event's description), in code points. Never on chain as text. */
export const MAX_LONG_TEXT_LENGTH = 2_000;

/** The most UTF-8 bytes a long text field within MAX_LONG_TEXT_LENGTH can take. */
export const MAX_LONG_TEXT_UTF8_BYTES = MAX_LONG_TEXT_LENGTH * 4;

/** With the u flag a pair is one code point; an unpaired surrogate is a code point of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The length of a string as the API counts it: code points, not UTF-16 code units. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Why a string cannot be stored or sent on as text, or null when it can. A NUL byte is refused by
 * PostgreSQL's text columns; a lone UTF-16 surrogate (\ud800 in JSON without its pair) is no
 * character at all and would be replaced by U+FFFD on its way to the database and the chain.
 */
export function textProblem(value: string, maxBytes = MAX_TEXT_UTF8_BYTES): string | null {
  if (value.includes("\u0000")) return "must not contain a NUL character (U+0000)";
  if (LONE_SURROGATE.test(value)) return "must not contain a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape)";
  // The cap on what reaches the chain (long text fields: what is stored); a string within its character limit always fits.
  if (Buffer.byteLength(value, "utf8") > maxBytes) return `must take at most ${maxBytes} bytes in UTF-8`;
  return null;
}
