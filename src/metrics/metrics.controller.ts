import { Controller, Get, Inject, Res } from "@nestjs/common";
import { ApiExcludeController } from "@nestjs/swagger";
import { PrometheusController } from "@willsoto/nestjs-prometheus";
import type { Response } from "express";
import type { Registry } from "prom-client";

import { Public } from "../auth/authenticated-organization";
import { METRICS_REGISTRY } from "./metrics.registry";

/**
 * GET /metrics in the Prometheus text format, without an API key (scrapers have none) but behind the
 * admin credential (basic auth, app.setup.ts): the metrics name signers, their balances and nonces.
 * The path is set by PrometheusModule.register.
 */
@Controller()
@Public()
@ApiExcludeController()
export class MetricsController extends PrometheusController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {
    super();
  }

  @Get()
  override async index(@Res({ passthrough: true }) response: Response): Promise<string> {
    response.header("Content-Type", this.registry.contentType);
    return this.registry.metrics();
  }
}
