import type { NextFunction, Request, RequestHandler, Response } from "express";
import helmet from "helmet";

import type { AppConfig } from "../config/app-config";
import { errorDetail } from "../common/errors/error-detail";

/** Swagger UI's page and static files: cacheable; every other answer is not. */
const DOCS_PAGE = /^\/docs(?:[/?]|$)/i;

/** One year, the preload lists' minimum. */
const HSTS = "max-age=31536000; includeSubDomains";

/**
 * Headers for a JSON API that also serves one HTML page (Swagger UI, its scripts and styles from
 * this origin): helmet's defaults (nosniff, no framing, no referrer, same-origin resource policy, a
 * Content-Security-Policy that allows only this origin's scripts and inline styles, no
 * X-Powered-By), Cache-Control: no-store on every answer but the docs, and HSTS on answers over
 * HTTPS when the service serves TLS or requires HTTPS.
 */
export function securityHeaders(config: AppConfig): RequestHandler[] {
  const sendHsts = config.http.requireHttps || config.http.tlsCertFile !== null;
  const defaults = helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      // upgrade-insecure-requests would break the docs served over plain HTTP on a developer's machine.
      directives: { "frame-ancestors": ["'none'"], "upgrade-insecure-requests": null },
    },
    xFrameOptions: { action: "deny" },
    strictTransportSecurity: false,
  });
  const cacheAndHsts = (request: Request, response: Response, next: NextFunction): void => {
    if (!DOCS_PAGE.test(request.originalUrl)) response.setHeader("Cache-Control", "no-store");
    if (sendHsts && request.secure) response.setHeader("Strict-Transport-Security", HSTS);
    next();
  };
  return [defaults, cacheAndHsts];
}

/** Health probes come from inside the network (the kubelet, the load balancer) and may use plain HTTP. */
const PROBE_PATH = /^\/health(?:[/?]|$)/i;

/**
 * With REQUIRE_HTTPS (the default in production on the API), a request that did not arrive over
 * HTTPS (TLS to this process, or X-Forwarded-Proto: https from a proxy in TRUST_PROXY) is refused
 * with 400 https_required before anything else happens: it is never answered silently over plain
 * HTTP, and its body (or its API key, already sent in clear) is not used.
 */
export function requireHttps(config: AppConfig): RequestHandler {
  const body = {
    status: "error",
    error: errorDetail("https_required", "This service accepts requests over HTTPS only; send the request again to its https:// address."),
  };
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!config.http.requireHttps || request.secure || PROBE_PATH.test(request.originalUrl)) return next();
    if (!request.complete) response.setHeader("Connection", "close");
    response.status(400).json(body);
  };
}
