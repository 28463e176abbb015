import { createHash } from "node:crypto";

import { codePointName, HIDDEN_CHARACTER } from "../common/validation/client-id";

/** HTML that is already safe: built by `html` from escaped values, never from raw input. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Text as HTML text or a quoted attribute value: every character that could end either is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

type Interpolated = SafeHtml | string | number | bigint | boolean | null | undefined | readonly Interpolated[];

/**
 * The only way the page builds markup: every interpolated value is escaped unless it is SafeHtml
 * (made by this same function), arrays are joined, null and undefined are empty. Ticket ids, chain
 * strings and query parameters can therefore never become markup.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

function render(value: Interpolated): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The CSP source of an inline style element: its SHA-256, so no 'unsafe-inline' is needed. */
export function styleHashSource(css: string): string {
  return `'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'`;
}

const HIDDEN_CHARACTERS = new RegExp(HIDDEN_CHARACTER.source, "gu");

/**
 * An id as a page shows it: each control, bidirectional or zero-width character as its code point
 * (⟨U+202E⟩), so that none hides in the id or reorders the page around it. The API refuses them in
 * ids; a page still shows an id from its URL, or one accepted before that rule.
 */
export function visibleId(id: string | null): string | null {
  return id === null ? null : id.replace(HIDDEN_CHARACTERS, (character) => `⟨${codePointName(character)}⟩`);
}
