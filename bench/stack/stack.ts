import { randomBytes } from "node:crypto";

import type { Database } from "../../scripts/stack/database";
import { freePort } from "../../scripts/stack/ports";
import { generateTestTls, writeTestTls } from "../../scripts/stack/local-tls";
import { type ProductionNodeProxy, startProductionNodeProxy } from "../../scripts/stack/production-node-proxy";
import { type RedisServer, startRedisServer } from "../../scripts/stack/redis-server";
import { startTcpProxy, type TcpProxy } from "../../scripts/stack/tcp-proxy";
import { type ReceivedCallback, startCallbackSink } from "../callback-sink";
import { type BenchChain, type BenchChainOptions, startBenchChain } from "./bench-chain";
import { createBenchDatabase } from "./bench-database";
import { trackTransactionSenders } from "./sender-tracking";
import { ServiceSupervisor } from "./service-supervisor";
import { startReceiverProcess } from "./npm-start-stack";
import { Teardown } from "./teardown";

/** The organization the api seeds at boot (DEV_TICKETEER_ID, DEV_API_KEY, DEV_WEBHOOK_SECRET). */
export interface StackOrganization {
  ticketeerId: string;
  apiKey: string;
  webhookSecret: string;
}

/** A fresh organization with random credentials. */
export function newOrganization(): StackOrganization {
  return { ticketeerId: "soak-organization", apiKey: `soak_${randomBytes(24).toString("hex")}`, webhookSecret: `whsec_${randomBytes(24).toString("base64")}` };
}

export interface StackOptions {
  logDir: string;
  organization: StackOrganization;
  /** Put a TCP proxy between the service and its chain node, so the node can be made unreachable. */
  chainProxy: boolean;
  /** Put a TCP proxy between the service processes and PostgreSQL, so the database can be made unreachable to them alone. */
  databaseProxy?: boolean;
  /** The chain node (default: Hardhat's automining node). */
  chainNode?: BenchChainOptions;
  /**
   * Put the production-node proxy (geth/bor's refusals, and refusals on demand) in front of
   * the node, behind the TCP proxy: service → TCP proxy → production-node proxy → node.
   */
  productionNodeProxy?: boolean;
  /** Signer keys (SIGNER_PRIVATE_KEYS, the node's funded development accounts #1 to #N, each an operator); default 1. */
  signers?: number;
  /** Worker processes (APP_ROLE=worker) beside the api; default 1. */
  workers?: number;
  /** Api processes (APP_ROLE=api) on the same database, each on a port of its own; default 1. */
  apis?: number;
  /**
   * Run the callback receiver in a process of its own, so that it takes no CPU from the run's own
   * event loop (a load generator); `onCallback` is then never called.
   */
  receiverProcess?: boolean;
  /** Service settings on top of the stack's own. */
  serviceEnv?: Record<string, string>;
  onCallback?: (callback: ReceivedCallback) => void;
}

/**
 * What `npm start` runs — a local node (Hardhat's, or Anvil as a production-like chain) with the
 * registry deployed by scripts/deploy.ts and the signers operators, the service on a fresh database — but with the api and each worker as separate
 * processes, a Redis of its own, and a local HTTPS callback receiver trusted through NODE_EXTRA_CA_CERTS.
 */
export interface Stack {
  baseUrl: string;
  /** Every api process's address (`apis`), the first one's first. */
  baseUrls: string[];
  apiKey: string;
  ticketeerId: string;
  webhookSecret: string;
  callbackUrl: (path?: string) => string;
  chain: BenchChain;
  proxy: TcpProxy | null;
  /** The TCP proxy the service processes reach PostgreSQL through, when asked for. */
  databaseProxy: TcpProxy | null;
  /** The production-node proxy in front of the node, when asked for. */
  nodeProxy: ProductionNodeProxy | null;
  redis: RedisServer;
  database: Database;
  services: ServiceSupervisor;
  stop: () => Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const teardown = new Teardown();
  try {
    return await assemble(options, teardown);
  } catch (error) {
    await teardown.run();
    throw error;
  }
}

async function assemble(options: StackOptions, teardown: Teardown): Promise<Stack> {
  const tls = writeTestTls(await generateTestTls());
  teardown.add("test TLS files", async () => tls.remove());
  const receiverPort = options.receiverProcess ? await startReceiverProcess(tls, options.logDir, teardown) : await startSinkHere(tls, options, teardown);
  const chain = await startBenchChain(options.logDir, { ...(options.chainNode ?? { kind: "hardhat" }), signers: options.signers ?? 1 });
  teardown.add("chain node", chain.stop);
  const nodeProxy = options.productionNodeProxy ? await startProductionNodeProxy(chain.url) : null;
  if (nodeProxy) teardown.add("production-node proxy", () => nodeProxy.close());
  const nodeUrl = nodeProxy?.url ?? chain.url;
  const proxy = options.chainProxy ? await startTcpProxy(Number(new URL(nodeUrl).port)) : null;
  if (proxy) teardown.add("chain proxy", proxy.close);
  const redis = await startRedisServer(options.logDir);
  teardown.add("redis", redis.stop);
  const database = await createBenchDatabase("soak");
  teardown.add("database", database.drop);
  const databaseUrl = new URL(database.url);
  const databaseProxy = options.databaseProxy ? await startTcpProxy(Number(databaseUrl.port || 5432), databaseUrl.hostname) : null;
  if (databaseProxy) teardown.add("database proxy", databaseProxy.close);

  const port = await freePort();
  const { organization } = options;
  const env = {
    ...chain.env,
    CHAIN_RPC_URL: proxy?.url ?? nodeUrl,
    DATABASE_URL: databaseProxy ? Object.assign(databaseUrl, { hostname: "127.0.0.1", port: String(databaseProxy.port) }).toString() : database.url,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: "trs-soak",
    APP_MODE: "development",
    LOG_LEVEL: "warn",
    DEV_TICKETEER_ID: organization.ticketeerId,
    DEV_API_KEY: organization.apiKey,
    DEV_WEBHOOK_SECRET: organization.webhookSecret,
    CALLBACK_ALLOW_HOSTS: "localhost",
    NODE_EXTRA_CA_CERTS: tls.caFile,
    // The load is one organization's; its steady rate is what is measured, not the limiter.
    RATE_LIMIT_REQUESTS: "1000000",
    ...options.serviceEnv,
  };
  const services = new ServiceSupervisor(env, port, options.logDir, options.workers ?? 1, options.apis ?? 1);
  teardown.add("services", () => services.stopAll());
  await services.start(() => trackTransactionSenders(database.url));

  return {
    baseUrl: services.baseUrl,
    baseUrls: services.baseUrls,
    ...organization,
    callbackUrl: (path = "/callbacks") => `https://localhost:${receiverPort}${path}`,
    chain,
    proxy,
    databaseProxy,
    nodeProxy,
    redis,
    database,
    services,
    stop: () => teardown.run(),
  };
}

async function startSinkHere(tls: { certFile: string; keyFile: string }, options: StackOptions, teardown: Teardown): Promise<number> {
  const receiver = await startCallbackSink(tls.certFile, tls.keyFile, options.onCallback);
  teardown.add("callback receiver", receiver.close);
  return receiver.port;
}
