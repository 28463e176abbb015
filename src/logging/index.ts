export { HTTP_LOGGER, useHttpLogging } from "./http-logging";
export { LoggingModule } from "./logging.module";
export { summarizeRequestIds } from "./request-ids";
export { processLogging, ServiceLogger } from "./service-logger";
