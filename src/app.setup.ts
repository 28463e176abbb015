import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from "@nestjs/swagger";
import express, { type NextFunction, type Request, type Response } from "express";

import { mountQueueDashboard } from "./admin/queue-dashboard";
import { AppModule } from "./app.module";
import { API_KEY_HEADER } from "./auth/api-key.guard";
import { AuthService } from "./auth/auth.service";
import type { AuthenticatedRequest } from "./auth/authenticated-organization";
import { API_KEY_SECURITY } from "./common/http/api-responses";
import { ApiExceptionFilter, bodyErrorAnswer, FORBIDDEN_BODY } from "./common/http/api-exception.filter";
import { ConnectionDrain } from "./common/http/connection-drain";
import { requestIdMiddleware } from "./common/http/request-id";
import type { AppConfig } from "./config/app-config";
import { ServiceLogger, useHttpLogging } from "./logging";
import { HttpMetrics } from "./metrics/http/http-metrics";
import { STREAM_PATHS } from "./stream/stream.controller";

/** Builds the HTTP application; main.ts and the end-to-end tests share it. */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  // Lines logged while the application starts wait for its JSON logger instead of going to the console.
  const app = await NestFactory.create(AppModule.forConfig(config), { bodyParser: false, bufferLogs: true });
  app.useLogger(app.get(ServiceLogger));
  configureApp(app, config);
  return app;
}

export function configureApp(app: INestApplication, config: AppConfig): void {
  app.enableShutdownHooks();
  // First, so that requests refused before routing (403, 413, invalid JSON) are timed too.
  app.use(app.get(HttpMetrics).middleware);
  app.use(app.get(ConnectionDrain).middleware);
  app.use(requestIdMiddleware);
  useHttpLogging(app);
  app.useGlobalFilters(new ApiExceptionFilter());
  mountQueueDashboard(app, config.admin);
  if (config.app.role !== "worker") configureApi(app, config);
}

/** What only the API role serves: authenticated writes, capped bodies and the Swagger docs. */
function configureApi(app: INestApplication, config: AppConfig): void {
  // Every write needs a key: a request without a valid one is refused before its body is read, so
  // it gets the 403 (not a body error) and nobody unauthenticated makes the service parse 16 MiB.
  app.use(authenticateWrites(app.get(AuthService)));
  // Bodies are capped per endpoint: /stream takes 5000 actions, the per-action endpoints 100 items.
  const parse = (limit: number) => express.json({ limit, strict: false, type: ["application/json", "application/*+json"] });
  app.use(
    STREAM_PATHS.map((path) => `/${path}`),
    parse(config.limits.streamBodyBytes),
  );
  app.use(parse(config.limits.ticketBodyBytes));
  app.use(answerBodyErrors);
  SwaggerModule.setup("docs", app, () => buildOpenApiDocument(app), { jsonDocumentUrl: "docs-json" });
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = new DocumentBuilder()
    .setTitle("Ticket registry service")
    .setDescription(
      "Register events and tickets and report what happens to them; every ticket is mirrored on chain as an ERC-721 token. " +
        "Writes are asynchronous: each accepted action gets a promise id (txPromise / actionPromise) and its outcome arrives by callback " +
        "and at GET /api/v1/actions/{promise}. Every request needs the X-Api-Key header (except /health and these docs).",
    )
    .setVersion("1")
    .addApiKey({ type: "apiKey", in: "header", name: "X-Api-Key", description: "The organization's API key, issued at onboarding." }, API_KEY_SECURITY)
    .build();
  return SwaggerModule.createDocument(app, document);
}

function authenticateWrites(auth: AuthService) {
  return (request: AuthenticatedRequest, response: Response, next: NextFunction): void => {
    if (request.method !== "POST") return next();
    const presented = request.headers[API_KEY_HEADER];
    (typeof presented === "string" ? auth.authenticate(presented) : Promise.resolve(null)).then(
      (organization) => {
        if (!organization) {
          response.status(403).json(FORBIDDEN_BODY);
          return;
        }
        request.organization = organization;
        next();
      },
      // The guard tries again and answers the failure through the exception filter.
      () => next(),
    );
  };
}

function answerBodyErrors(error: unknown, _request: Request, response: Response, next: NextFunction): void {
  const answer = bodyErrorAnswer(error);
  if (!answer) return next(error);
  response.status(answer.status).json({ status: "error", error: answer.detail });
}
