import { HIDDEN_CHARACTER } from "./client-id";
import { isWebUrl } from "./field-rules";
import { characterCount, MAX_TEXT_LENGTH } from "./text";

/**
 * The schemes a ticket's `uri` may use. Wallets and marketplaces show the uri as the token's image:
 * https is fetched encrypted from a host, ipfs and ar name content by its hash. Every other scheme is
 * refused: javascript: and vbscript: run script, data: renders a document of the sender's choosing,
 * http: travels in the clear, file: and the rest name what a wallet should never open.
 */
export const TOKEN_URI_SCHEMES = ["https", "ipfs", "ar"] as const;

const RULE = `must be an https, ipfs:// or ar:// URI of at most ${MAX_TEXT_LENGTH} characters, or blank`;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const HTTPS_PREFIX = /^https:\/\//i;
/** After ipfs:// or ar://: the content's id, then an optional path. */
const CONTENT_ADDRESSED = /^(ipfs|ar):\/\/[^/?#]+/i;
/** What no uri holds: spaces, hidden characters, and what ends an HTML attribute or is never left unencoded in a URI (RFC 3986). */
const UNSAFE_CHARACTER = /[\s"<>\\^`{|}]/u;

/** Why `value` cannot be a ticket's uri, or null when it can. The blank default is the field decorator's to allow. */
export function tokenUriProblem(value: unknown): string | null {
  if (typeof value !== "string" || value === "" || characterCount(value) > MAX_TEXT_LENGTH) return RULE;
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return `${RULE}: it has no scheme`;
  if (!(TOKEN_URI_SCHEMES as readonly string[]).includes(scheme)) {
    return (
      `${RULE}: "${scheme}:" is refused, because wallets show the uri as the token's image and another scheme could run script, ` +
      "show a document of the sender's choosing or load in the clear"
    );
  }
  if (UNSAFE_CHARACTER.test(value) || HIDDEN_CHARACTER.test(value)) {
    return `${RULE}: it must not contain spaces, control, bidirectional or zero-width characters, nor any of " < > \\ ^ \` { | }`;
  }
  // isURL also takes "https:host/path"; a uri a wallet follows is written in full.
  if (scheme === "https") return HTTPS_PREFIX.test(value) && isWebUrl(value, true) ? null : `${RULE}: not a well-formed https URL with a host`;
  return CONTENT_ADDRESSED.test(value) ? null : `${RULE}: write it ${scheme}://<content id>, then an optional path`;
}

/** A uri the token may show: tokenUriProblem finds nothing. */
export function isTokenUri(value: unknown): boolean {
  return tokenUriProblem(value) === null;
}
