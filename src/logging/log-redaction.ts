import type { redactOptions } from "pino";

/** What a redacted value is replaced with: says that something was there without saying what. */
export const REDACTED = "[redacted]";

/**
 * Header paths of the request and response objects pino-http logs. Credentials (API keys, the queue
 * dashboard's basic auth, cookies) and webhook signatures never reach the logs.
 */
const HEADER_PATHS = [
  'req.headers["x-api-key"]',
  "req.headers.authorization",
  'req.headers["proxy-authorization"]',
  "req.headers.cookie",
  'req.headers["webhook-signature"]',
  'res.headers["set-cookie"]',
];

/**
 * Field names that hold a secret wherever a log line might carry them (top level or one object
 * down): nothing logs them today, and this keeps a future careless line from leaking one.
 * `parameters` is TypeORM's: a logged query error (`err.parameters`) carries the values of its
 * statement, a new organization's webhook secret among them.
 */
const SECRET_FIELDS = [
  "apiKey",
  "password",
  "secret",
  "webhookSecret",
  "privateKey",
  "signerKeys",
  "rpcUrl",
  "rpcUrls",
  "rpcHeaders",
  "databaseUrl",
  "redisUrl",
  "authorization",
  "cookie",
  "parameters",
];

export const REDACTED_PATHS: readonly string[] = [...HEADER_PATHS, ...SECRET_FIELDS, ...SECRET_FIELDS.map((field) => `*.${field}`)];

export const logRedaction: redactOptions = { paths: [...REDACTED_PATHS], censor: REDACTED };
