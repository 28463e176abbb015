import pino from "pino";

import type { AppConfig } from "../config/app-config";
import { logRedaction } from "./log-redaction";

/** LOG_LEVEL speaks Nest's names; pino calls Nest's `verbose` `trace` (nestjs-pino maps the calls the same way). */
export function pinoLevelOf(logLevel: string): pino.Level {
  if (logLevel === "verbose") return "trace";
  if (["fatal", "error", "warn", "info", "debug"].includes(logLevel)) return logLevel as pino.Level;
  throw new Error(`unknown log level "${logLevel}"`);
}

/**
 * One JSON object per line on stdout: `level` as a name and `time` as ISO 8601 so a person can read
 * a line without tools, `role` so the lines of api and worker processes can share one stream.
 */
export function loggerOptions(config: AppConfig): pino.LoggerOptions {
  return {
    level: pinoLevelOf(config.app.logLevel),
    base: { pid: process.pid, role: config.app.role },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: logRedaction,
  };
}
