import { randomBytes } from "node:crypto";

import { freePort } from "../../test/support/test-chain";
import { startTcpProxy, type TcpProxy } from "../../test/support/tcp-proxy";
import { generateTestTls, writeTestTls } from "../../test/support/test-ca";
import { type ReceivedCallback, startCallbackSink } from "../callback-sink";
import { type ChainNode, startChainNode } from "./chain-node";
import { createDatabase, type Database } from "./database";
import { type RedisServer, startRedisServer } from "./redis-server";
import { ServiceSupervisor } from "./service-supervisor";
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
  /** Service settings on top of the stack's own. */
  serviceEnv?: Record<string, string>;
  onCallback: (callback: ReceivedCallback) => void;
}

/**
 * What `npm start` runs — a Hardhat node with the registry deployed by scripts/deploy.ts and the
 * signer an operator, the service on a fresh database — but with the api and the worker as separate
 * processes, a Redis of its own, and a local HTTPS callback receiver trusted through NODE_EXTRA_CA_CERTS.
 */
export interface Stack {
  baseUrl: string;
  apiKey: string;
  ticketeerId: string;
  webhookSecret: string;
  callbackUrl: (path?: string) => string;
  chain: ChainNode;
  proxy: TcpProxy | null;
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
  const receiver = await startCallbackSink(tls.certFile, tls.keyFile, options.onCallback);
  teardown.add("callback receiver", receiver.close);
  const chain = await startChainNode(options.logDir);
  teardown.add("chain node", chain.stop);
  const proxy = options.chainProxy ? await startTcpProxy(Number(new URL(chain.url).port)) : null;
  if (proxy) teardown.add("chain proxy", proxy.close);
  const redis = await startRedisServer(options.logDir);
  teardown.add("redis", redis.stop);
  const database = await createDatabase("soak");
  teardown.add("database", database.drop);

  const port = await freePort();
  const { organization } = options;
  const env = {
    ...chain.env,
    ...(proxy ? { CHAIN_RPC_URL: proxy.url } : {}),
    DATABASE_URL: database.url,
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
  const services = new ServiceSupervisor(env, port, options.logDir);
  teardown.add("services", () => services.stopAll());
  await services.start();

  return {
    baseUrl: services.baseUrl,
    ...organization,
    callbackUrl: (path = "/callbacks") => `https://localhost:${receiver.port}${path}`,
    chain,
    proxy,
    redis,
    database,
    services,
    stop: () => teardown.run(),
  };
}
