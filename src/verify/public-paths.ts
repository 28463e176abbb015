/**
 * The public ticket page's path prefix: `GET /verify/{ticketId}` needs no API key. Its handler is
 * marked @Public(), which is what lets it through the API-key check (the guard, and the check made
 * before routing and before any body is read); the page limits its own rate per client IP.
 */
export const VERIFY_PATH = "verify";
