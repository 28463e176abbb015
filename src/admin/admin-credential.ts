import basicAuth from "express-basic-auth";

import type { AppConfig } from "../config/app-config";

/** The basic-auth realm of every operations view: the queue dashboard, /metrics, and readiness in full. */
export const ADMIN_REALM = "ticket-registry-admin";

/**
 * Whether an Authorization header carries the admin credential (ADMIN_USERNAME/ADMIN_PASSWORD as
 * HTTP basic auth), compared in constant time. Without ADMIN_PASSWORD nobody is an admin. The
 * throttle of wrong guesses is AdminGate's.
 */
export function isAdminRequest(authorization: string | undefined, admin: AppConfig["admin"]): boolean {
  if (admin.password === null || !authorization?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(authorization.slice("Basic ".length).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return false;
  const userMatches = basicAuth.safeCompare(decoded.slice(0, colon), admin.username);
  const passwordMatches = basicAuth.safeCompare(decoded.slice(colon + 1), admin.password);
  return userMatches && passwordMatches;
}
