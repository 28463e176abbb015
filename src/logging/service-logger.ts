import { Logger, type Params, PinoLogger } from "nestjs-pino";
import pino from "pino";

import type { AppConfig } from "../config/app-config";
import { logFormatOf, prettyStream } from "./log-format";
import { loggerOptions } from "./logger-options";

/** Nest's own start-up lines (one per module and per route) go to debug, so the service's lines stand out at info. */
const FRAMEWORK_CONTEXTS = new Set(["InstanceLoader", "RoutesResolver", "RouterExplorer", "NestFactory", "NestApplication", "NestApplicationContext"]);

/** nestjs-pino's Nest logger: every `new Logger(...)` of @nestjs/common writes through it once it is in use. */
export class ServiceLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    // Nest's Logger passes its context last.
    if (FRAMEWORK_CONTEXTS.has(optionalParams[optionalParams.length - 1] as string)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

export interface ProcessLogging {
  /** The pino logger every line goes through. */
  root: pino.Logger;
  /** nestjs-pino's parameters: the request logger is mounted by useHttpLogging, so the module only binds its context. */
  params: Params;
  /** For Nest (`app.useLogger`, `Logger.overrideLogger`). */
  nest: ServiceLogger;
}

let current: ProcessLogging | undefined;

/**
 * The process's logging, built on first use. One per process, because nestjs-pino keeps one root
 * logger per process anyway: a second application in the same process (tests) logs through the first one's.
 */
export function processLogging(config: AppConfig): ProcessLogging {
  if (current) return current;
  const format = logFormatOf(config.app.logFormat, Boolean(process.stdout.isTTY));
  const root = format === "pretty" ? pino(loggerOptions(config), prettyStream()) : pino(loggerOptions(config));
  const params: Params = { pinoHttp: { logger: root }, useExisting: true };
  current = { root, params, nest: new ServiceLogger(new PinoLogger(params), params) };
  return current;
}
