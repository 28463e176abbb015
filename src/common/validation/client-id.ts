import { characterCount, MAX_TEXT_LENGTH, textProblem } from "./text";

/**
 * The characters no id may hold, because they hide in or reorder the text an id is shown in (a
 * ticket page, a log line, an integrator's back office): control characters (C0, DEL, C1: `\p{Cc}`,
 * NUL included), bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and
 * zero-width characters (U+200B–U+200D, U+2060, U+FEFF).
 */
export const HIDDEN_CHARACTER = /[\p{Cc}\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/u;

const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const ONLY_DOTS = /^\.+$/;

/**
 * Why `value` cannot be an id the integrator chooses (eventId, ticketId, ticketeerId), or null when it
 * can: a string of 1 to 255 characters, counted as code points (as every string field of the API and
 * the ticket page count them), none of them hidden or reordering (HIDDEN_CHARACTER), and not only
 * dots: ".", ".." and the like are path steps that URL parsers resolve away, so no URL could reach
 * the id's public page.
 */
export function clientIdProblem(value: unknown): string | null {
  if (typeof value !== "string") return "must be a string";
  if (value === "") return "must not be blank";
  if (characterCount(value) > MAX_TEXT_LENGTH) return `must be at most ${MAX_TEXT_LENGTH} characters (Unicode code points)`;
  const text = textProblem(value);
  if (text) return text;
  const hidden = HIDDEN_CHARACTER.test(value) ? firstHiddenCharacter(value) : null;
  if (hidden) {
    return (
      `must not contain ${codePointName(hidden.character)} (character ${hidden.position}), ${kindOf(hidden.character)}: ` +
      "ids refuse control, bidirectional and zero-width characters"
    );
  }
  if (ONLY_DOTS.test(value)) return 'must not be only dots: ".", ".." and the like are path steps, so no URL could name its page';
  return null;
}

/**
 * Why `value` cannot name an id where one is looked up (a path or query parameter), or null: 1 to 255
 * code points. Lookups take the characters acceptance now refuses, so that an id accepted before that
 * rule can still be found.
 */
export function idLookupProblem(value: string): string | null {
  const count = characterCount(value);
  return count === 0 || count > MAX_TEXT_LENGTH ? `must be 1 to ${MAX_TEXT_LENGTH} characters (Unicode code points)` : null;
}

/** `U+202E`: how messages and pages name a character. */
export function codePointName(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Which character HIDDEN_CHARACTER found, and where (in code points, from 1). */
function firstHiddenCharacter(value: string): { character: string; position: number } | null {
  let position = 0;
  for (const character of value) {
    position++;
    if (HIDDEN_CHARACTER.test(character)) return { character, position };
  }
  return null;
}

function kindOf(character: string): string {
  if (/\p{Cc}/u.test(character)) return "a control character";
  if (BIDI_CONTROLS.test(character)) return "a bidirectional control, which reorders the text around it";
  return "a zero-width character, which cannot be seen";
}
