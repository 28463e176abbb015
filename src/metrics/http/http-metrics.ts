import { Injectable } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { NextFunction, Request, Response } from "express";
import type { Histogram } from "prom-client";

import { METRICS } from "../metric-definitions";
import { type KnownRoute, matchRoute, statusClass } from "./route-label";

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
}

/**
 * Times every HTTP request, labelled with its route pattern. Installed first, as Express
 * middleware, so the requests refused before routing (403 without a key, 413, invalid JSON) are
 * timed too.
 */
@Injectable()
export class HttpMetrics {
  private routes: KnownRoute[] | null = null;

  constructor(@InjectMetric(METRICS.httpDuration.name) private readonly duration: Histogram) {}

  readonly middleware = (request: Request, response: Response, next: NextFunction): void => {
    const end = this.duration.startTimer();
    response.once("close", () => {
      const status = response.writableFinished ? statusClass(response.statusCode) : "aborted";
      end({ method: request.method, route: this.routeOf(request), status_class: status });
    });
    next();
  };

  /** The matched route's pattern, or for a request answered before routing the pattern its path belongs to. */
  private routeOf(request: Request): string {
    const matched = (request as { route?: { path?: unknown } }).route?.path;
    if (typeof matched === "string") return matched;
    return matchRoute(this.knownRoutes(request), request.method, request.originalUrl);
  }

  /** Read from the router once requests arrive, when every route is registered. */
  private knownRoutes(request: Request): KnownRoute[] {
    if (!this.routes) {
      const stack = (request.app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
      this.routes = stack.flatMap((layer) =>
        layer.route && typeof layer.route.path === "string"
          ? [{ pattern: layer.route.path, methods: new Set(Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method])) }]
          : [],
      );
    }
    return this.routes;
  }
}
