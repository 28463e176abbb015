import { type DynamicModule, Module } from "@nestjs/common";
import { LoggerModule } from "nestjs-pino";

import type { AppConfig } from "../config/app-config";
import { createHttpLogger, HTTP_LOGGER } from "./http-logging";
import { processLogging, ServiceLogger } from "./service-logger";

/**
 * Structured JSON logs through pino (nestjs-pino): the request logger, and the context that gives
 * every line logged while a request is handled that request's id.
 */
@Module({})
export class LoggingModule {
  static forConfig(config: AppConfig): DynamicModule {
    const logging = processLogging(config);
    return {
      module: LoggingModule,
      global: true,
      imports: [LoggerModule.forRoot(logging.params)],
      providers: [
        { provide: ServiceLogger, useValue: logging.nest },
        { provide: HTTP_LOGGER, useValue: createHttpLogger(logging.root) },
      ],
      exports: [ServiceLogger, HTTP_LOGGER],
    };
  }
}
