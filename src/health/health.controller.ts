import { Controller, Get, HttpException, HttpStatus, Optional, Req } from "@nestjs/common";
import { ApiOperation, ApiTags } from "@nestjs/swagger";
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from "@nestjs/terminus";
import type { Request } from "express";
import type Redis from "ioredis";

import { AdminGate } from "../admin/admin-gate";

import { Public } from "../auth/authenticated-organization";
import { ChainClient } from "../chain/chain-client";
import { LedgerBindingIndicator } from "../chain/writer/binding/ledger-binding.indicator";
import { FeeCapIndicator } from "../chain/writer/fee-cap/fee-cap.indicator";
import { SignerProgressIndicator } from "../chain/writer/progress/signer-progress.indicator";
import { SignerStopIndicator } from "../chain/writer/reconcile/signer-stop.indicator";
import { SignerFundsIndicator } from "../chain/writer/signer-funds/signer-funds.indicator";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { InjectRedis } from "../redis/redis.module";
import { publicHealth } from "./public-health";

const CHECK_TIMEOUT_MS = 1_500;
/**
 * One chain check serves every readiness request for this long, and requests while it runs wait for
 * it: probes and anybody without a key would otherwise spend a node call each (2,000 requests, 2,000
 * eth_blockNumber).
 */
const CHAIN_CHECK_SHARED_MS = 1_000;

@ApiTags("health")
@Controller("health")
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectRedis() private readonly redis: Redis,
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
    private readonly adminGate: AdminGate,
    @Optional() private readonly signerFunds?: SignerFundsIndicator,
    @Optional() private readonly feeCap?: FeeCapIndicator,
    @Optional() private readonly signerProgress?: SignerProgressIndicator,
    @Optional() private readonly signerStops?: SignerStopIndicator,
    @Optional() private readonly ledgerBinding?: LedgerBindingIndicator,
  ) {}

  @Get("live")
  @Public()
  @HealthCheck()
  @ApiOperation({ operationId: "getLiveness", summary: "Liveness: the process is up and answering; restart it when this fails (no API key needed)" })
  live() {
    return this.health.check([]);
  }

  @Get("ready")
  @Public()
  @HealthCheck()
  @ApiOperation({
    operationId: "getReadiness",
    summary: "Readiness: PostgreSQL, Redis and, where the chain writer runs, the chain answer (no API key needed)",
    description:
      "503 while a dependency this instance needs is down or while it shuts down: a load balancer stops sending it requests. " +
      "An API instance keeps accepting work while the chain is down (the actions wait in the ledger), so for it the chain is reported, not required. " +
      "Status degraded (still 200): the chain is away from an API instance, or a signer's balance is below what the next hour of batches needs, fees are over MAX_FEE_PER_GAS_GWEI, or a signer is stuck (chainWriter: its oldest nonce unmined for SIGNER_STUCK_AFTER_MS, or its last 3 broadcasts refused), " +
      "or a signer is stopped (signerNonces: the chain took its nonces with transactions the ledger does not know; it signs nothing until `npm run cli -- signer reconcile <address>`), " +
      "or the configured registry is not the ledger's (ledgerBinding: the ledger's and the configured chain id, registry address and deployment block, and what to do). " +
      "Without the admin credential (ADMIN_USERNAME/ADMIN_PASSWORD as basic auth) signers are only counted (signerFunds.signers, shortSigners; chainWriter.stuckSigners; signerNonces.stoppedSigners): their addresses, balances and nonces are for the admin.",
  })
  ready(@Req() request: Request) {
    return this.shownTo(request, () => this.readiness());
  }

  @Get()
  @Public()
  @HealthCheck()
  @ApiOperation({ operationId: "getHealth", summary: "The same as /health/ready (no API key needed)" })
  check(@Req() request: Request) {
    return this.ready(request);
  }

  /**
   * The whole result for the admin credential (basic auth, as the queue dashboard); for anybody
   * else without signer addresses, balances or nonces (public-health.ts), the 503's body too.
   */
  private async shownTo<T>(request: Request, run: () => Promise<T>): Promise<T> {
    // A wrong credential counts against the client's guesses; a throttled client sees what anybody does.
    if ((await this.adminGate.standing(request)).kind === "admin") return run();
    try {
      return publicHealth(await run());
    } catch (error) {
      if (error instanceof HttpException && error.getStatus() === 503 && typeof error.getResponse() === "object") {
        throw new HttpException(publicHealth(error.getResponse()), HttpStatus.SERVICE_UNAVAILABLE);
      }
      throw error;
    }
  }

  private readiness() {
    const { signerFunds, feeCap, signerProgress, signerStops, ledgerBinding } = this;
    return this.health.check([
      () => this.database.pingCheck("database").withTimeout(CHECK_TIMEOUT_MS),
      () => this.redisCheck(),
      () => this.chainCheck(),
      ...(signerFunds ? [() => signerFunds.isHealthy()] : []),
      ...(feeCap?.configured ? [() => feeCap.isHealthy()] : []),
      ...(signerProgress ? [() => signerProgress.isHealthy()] : []),
      ...(signerStops ? [() => signerStops.isHealthy()] : []),
      ...(ledgerBinding ? [() => ledgerBinding.isHealthy()] : []),
    ]);
  }

  private redisCheck() {
    return this.indicators
      .check("redis")
      .attempt(async () => {
        await this.redis.ping();
      })
      .withTimeout(CHECK_TIMEOUT_MS);
  }

  /**
   * Without a configured chain the service still accepts work; it waits in the ledger. With several
   * JSON-RPC endpoints, one that fails while another answers makes the chain degraded, not down;
   * every endpoint's health is listed (URLs without credentials, paths or queries).
   */
  private async chainCheck() {
    const session = this.indicators.check("chain");
    if (!this.chain.configured) return session.up({ configured: false });
    const check = session
      .attempt(async () => {
        const provider = await this.chain.connect();
        return { configured: true, chainId: Number(await this.chain.chainId()), blockNumber: await provider.getBlockNumber() };
      })
      .withTimeout(CHECK_TIMEOUT_MS)
      .cacheFor(CHAIN_CHECK_SHARED_MS);
    const result = await check;
    const endpoints = this.chain.endpointHealth();
    const withEndpoints = endpoints.length > 1 ? { endpoints } : {};
    const { status, ...details } = result.chain;
    if (status === "up") {
      if (endpoints.some((endpoint) => endpoint.up === false)) return session.degraded({ ...details, ...withEndpoints });
      return session.up({ ...details, ...withEndpoints });
    }
    // Degraded, not down: an API instance must not leave the load balancer because the chain is away.
    if (this.config.app.role === "api") return session.degraded({ ...details, ...withEndpoints, reachable: false });
    return session.down({ ...details, ...withEndpoints });
  }
}
