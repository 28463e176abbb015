import type { Server as HttpServer } from "node:http";
import type { Server as HttpsServer } from "node:https";

import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from "@nestjs/swagger";
import type { NextFunction, Request, Response } from "express";

import { AdminGate } from "./admin/admin-gate";
import { servedByPort } from "./admin/operations-server";
import { mountQueueDashboard } from "./admin/queue-dashboard";
import { AppModule } from "./app.module";
import { AuthService } from "./auth/auth.service";
import { documentKeyScopes } from "./auth/key-scope-openapi";
import { RateLimiter } from "./auth/rate-limiter";
import type { Clock } from "./common/clock";
import { API_KEY_SECURITY } from "./common/http/api-responses";
import { ApiExceptionFilter, bodyErrorAnswer } from "./common/http/api-exception.filter";
import { documentCommonAnswers } from "./common/http/common-answers-openapi";
import { ConnectionDrain } from "./common/http/connection-drain";
import { jsonBody } from "./common/http/json-body";
import { requestIdMiddleware } from "./common/http/request-id";
import { limitSlowRequests } from "./common/http/slow-requests";
import type { AppConfig } from "./config/app-config";
import { documentIdempotencyKeys } from "./idempotency/idempotency-openapi";
import { ServiceLogger, useHttpLogging } from "./logging";
import { HttpMetrics } from "./metrics/http/http-metrics";
import type { KnownRoute } from "./metrics/http/route-label";
import { apiKeyFirst } from "./security/api-key-first";
import { publicRoutes } from "./security/public-routes";
import { requireHttps, securityHeaders } from "./security/security-headers";
import { readTlsFiles, watchTlsFiles } from "./security/tls";
import { STREAM_PATHS } from "./stream/stream.controller";

/**
 * Builds the HTTP application; main.ts and the end-to-end tests share it. `shutdownHooks: false`:
 * the caller handles the stop signals itself (main.ts, which says how the process stopped).
 */
export async function createApp(config: AppConfig, options: { shutdownHooks?: boolean; clock?: Clock } = {}): Promise<INestApplication> {
  // Lines logged while the application starts wait for its JSON logger instead of going to the console.
  // TLS_CERT_FILE / TLS_KEY_FILE: HTTPS served directly, the files picked up again when they change.
  const httpsOptions = readTlsFiles(config.http) ?? undefined;
  const app = await NestFactory.create(AppModule.forConfig(config, { clock: options.clock }), { bodyParser: false, bufferLogs: true, httpsOptions });
  app.useLogger(app.get(ServiceLogger));
  limitSlowRequests(app.getHttpServer() as HttpServer, config.http);
  if (httpsOptions) watchTlsFiles(app.getHttpServer() as HttpsServer, config.http);
  configureApp(app, config, options);
  return app;
}

export function configureApp(app: INestApplication, config: AppConfig, options: { shutdownHooks?: boolean } = {}): void {
  if (options.shutdownHooks !== false) app.enableShutdownHooks();
  // First, so that requests refused before routing (403, 413, invalid JSON) are timed too.
  app.use(app.get(HttpMetrics).middleware);
  app.use(app.get(ConnectionDrain).middleware);
  app.use(requestIdMiddleware);
  useHttpLogging(app);
  app.useGlobalFilters(new ApiExceptionFilter());
  // Before anything that answers or reads a body: headers on every answer, plain HTTP refused where HTTPS is required.
  const server = app.getHttpAdapter().getInstance() as { disable: (setting: string) => void; set: (setting: string, value: unknown) => void };
  server.disable("x-powered-by");
  if (config.http.trustProxy.length > 0) server.set("trust proxy", config.http.trustProxy);
  app.use(...securityHeaders(config));
  app.use(requireHttps(config));
  // Metrics and the queue dashboard on the operations port only (OPS_PORT), the API not there.
  app.use(servedByPort(config));
  // Operations views behind the admin credential (basic auth): the metrics name signers, their balances and nonces.
  // Without ADMIN_PASSWORD nobody gets in (401); anything under /admin, even a path that does not exist, is the same.
  app.use(["/metrics", "/admin"], app.get(AdminGate).adminOnly());
  mountQueueDashboard(app, config.admin);
  if (config.app.role !== "worker") configureApi(app, config);
}

/** What only the API role serves: authenticated writes, capped bodies and the Swagger docs. */
function configureApi(app: INestApplication, config: AppConfig): void {
  // Every request but health and the docs needs a key, and is counted against its rate limit, before
  // its body is read: without a valid key it gets the 403 (not a body error, not a 404), over the
  // limit the 429, and nobody unauthenticated makes the service parse 16 MiB.
  let routes: KnownRoute[] | null = null;
  app.use(apiKeyFirst(app.get(AuthService), app.get(RateLimiter), () => (routes ??= publicRoutes(app))));
  // Bodies are capped per endpoint: /stream takes 5000 actions, the per-action endpoints 100 items;
  // and in nesting, before JSON.parse builds what they hold.
  const parse = (limit: number) => jsonBody({ limit, maxDepth: config.limits.jsonDepth });
  app.use(
    STREAM_PATHS.map((path) => `/${path}`),
    parse(config.limits.streamBodyBytes),
  );
  app.use(parse(config.limits.ticketBodyBytes));
  app.use(answerBodyErrors);
  // showExtensions: each operation's x-key-scope (the API key scope it needs) shows on the page.
  SwaggerModule.setup("docs", app, () => buildOpenApiDocument(app), { jsonDocumentUrl: "docs-json", swaggerOptions: { showExtensions: true } });
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
    .addApiKey(
      {
        type: "apiKey",
        in: "header",
        name: "X-Api-Key",
        description:
          "The organization's API key, issued at onboarding. Its scope says what it may call: read (every GET, the live status stream), " +
          "scan (the reads and the check-ins: POST /api/v1/scanned, /api/v1/checkedin, and a /stream of scannedTicket and checkedInTicket actions only) " +
          "or full (everything). Each operation names the scope it needs (x-key-scope); a key outside it gets 403 " +
          '{"message":"Forbidden","code":"key_scope"}. A key may be bound to IP ranges: from elsewhere, 403 {"message":"Forbidden","code":"key_ip"}.',
      },
      API_KEY_SECURITY,
    )
    .build();
  return documentCommonAnswers(documentKeyScopes(documentIdempotencyKeys(SwaggerModule.createDocument(app, document))));
}

function answerBodyErrors(error: unknown, _request: Request, response: Response, next: NextFunction): void {
  const answer = bodyErrorAnswer(error);
  if (!answer) return next(error);
  response.status(answer.status).json({ status: "error", error: answer.detail });
}
