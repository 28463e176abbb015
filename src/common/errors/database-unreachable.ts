/**
 * Whether an error means PostgreSQL cannot be reached just now (the server down, restarting or cut
 * off), as opposed to a query the server refused: the first is a 503 worth retrying, the second a
 * bug (a 500). Read from the error's code and, for the driver's own connection failures that carry
 * none, its message; TypeORM's QueryFailedError (driverError), an Error's cause and Node's
 * AggregateError (every address of a host refused) are looked through.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string" && unreachableCode(code)) return true;
  if (typeof message === "string" && UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  const inner: unknown[] = [driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  return inner.some((candidate) => candidate !== error && isDatabaseUnreachable(candidate, depth + 1));
}

/** Node's socket errors on the way to the server. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * SQLSTATE: class 08 (connection exception), 57P01 admin_shutdown, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery).
 */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03"]);

function unreachableCode(code: string): boolean {
  return SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}

/** node-postgres and pg-pool say these without a code. */
const UNREACHABLE_MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect$/, // the pool's connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable$/,
];
