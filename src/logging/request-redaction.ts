import { REDACTED } from "./log-redaction";

/**
 * What in a name says that its value is a credential, looked for in the name once it is decoded,
 * lower-cased and stripped of everything but letters and digits: `X-Api_Key`, `api%5Fkey`,
 * `apiKey` and `API-KEY` are all `apikey`. Deliberately broad (any name with `key`, `token`,
 * `auth`... in it): a harmless value hidden by mistake costs a little debugging, a key logged in
 * clear costs a key. Pino's redact paths cannot do this: they match exact names only.
 */
const SECRET_NAME = /key|token|secret|passw|passphrase|pwd|auth|signature|^sig$|cookie|session|credential|jwt|bearer/;

/** Names that match SECRET_NAME but are identifiers, not credentials: `Idempotency-Key` helps to trace a retry. */
const NOT_SECRET = new Set(["idempotencykey"]);

/**
 * This service's API keys (`trk_` and at least 8 key characters), wherever they are: a key under a
 * harmless name (`?q=trk_...`), glued to another value (`?limit=1;apiKey=trk_...`) or in the path.
 */
const API_KEY_VALUE = /trk_[A-Za-z0-9_-]{8,}/;

/** What pino-std-serializers makes of a request (`req`): only the fields that may carry a secret are typed. */
export interface SerializedRequest {
  url?: string;
  query?: unknown;
  headers?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface SerializedResponse {
  headers?: Record<string, unknown>;
  [field: string]: unknown;
}

/** pino-http's `req` serializer: the url, the query and the headers with every credential in them redacted. */
export function redactRequest(request: SerializedRequest): SerializedRequest {
  return {
    ...request,
    ...(typeof request.url === "string" ? { url: redactUrl(request.url) } : {}),
    ...(isRecord(request.query) ? { query: redactFields(request.query) } : {}),
    ...(isRecord(request.headers) ? { headers: redactFields(request.headers) } : {}),
  };
}

/** pino-http's `res` serializer: response headers named like credentials (`set-cookie`...) redacted. */
export function redactResponse(response: SerializedResponse): SerializedResponse {
  return isRecord(response.headers) ? { ...response, headers: redactFields(response.headers) } : response;
}

/**
 * A URL (path and query, or a whole URL) with each query value whose name looks like a credential,
 * and every segment or value that carries an API key, replaced by REDACTED. The rest is kept as sent.
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const redactedPath = path
    .split("/")
    .map((segment) => (carriesApiKey(decodePart(segment)) ? REDACTED : segment))
    .join("/");
  if (queryAt === -1) return redactedPath;
  const query = url
    .slice(queryAt + 1)
    .split("&")
    .map(redactQueryPair)
    .join("&");
  return `${redactedPath}?${query}`;
}

/** Whether a header or parameter name looks like it holds a credential, whatever its case and separators. */
export function isSecretName(name: string): boolean {
  const bare = decodePart(name)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  return !NOT_SECRET.has(bare) && SECRET_NAME.test(bare);
}

function redactQueryPair(pair: string): string {
  const equals = pair.indexOf("=");
  const name = equals === -1 ? pair : pair.slice(0, equals);
  const value = equals === -1 ? "" : pair.slice(equals + 1);
  if (isSecretName(name) || hidesSecret(decodePart(value))) return equals === -1 ? REDACTED : `${name}=${REDACTED}`;
  return carriesApiKey(decodePart(name)) ? REDACTED : pair;
}

/**
 * Headers, query parameters: a field named like a credential, or whose value hides one, is redacted;
 * a name that is itself a key (`?trk_...`) is replaced too.
 */
function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const redacted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    redacted[carriesApiKey(name) ? REDACTED : name] = isSecretName(name) ? REDACTED : redactValue(value);
  }
  return redacted;
}

function redactValue(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === "number" || typeof value === "boolean") return value;
  // A URL in a header (referer, location): only the credentials in its query go.
  if (typeof value === "string" && value.includes("?")) return redactUrl(value);
  return hidesSecret(typeof value === "string" ? value : JSON.stringify(value)) ? REDACTED : value;
}

/**
 * A value that carries an API key, or that glues a credential to itself with another separator
 * than `&` (`?limit=1;apiKey=...`: the query parser reads it all as the value of `limit`).
 */
function hidesSecret(value: string): boolean {
  if (carriesApiKey(value)) return true;
  return value.split(/[;,&\s]/).some((piece) => piece.includes("=") && isSecretName(piece.slice(0, piece.indexOf("="))));
}

function carriesApiKey(text: string): boolean {
  return API_KEY_VALUE.test(text);
}

/** A query or path part as the server reads it (`+` is a space in a query); left as it is when it is not valid percent-encoding. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    return part;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
