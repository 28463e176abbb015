import { afterAll, beforeAll } from "vitest";

import { type ApiClient, apiClient } from "./api-client";
import { DELIVERY_ENV } from "./callbacks-e2e";
import { type HttpsReceiver, startHttpsReceiver } from "./https-receiver";
import { type ProductionNodeProxy, startProductionNodeProxy } from "./production-node-proxy";
import { sharedNodeUrl } from "./shared-nodes-global-setup";
import { defaultChainNode, deployTestChain, startTestChain, type TestChain, type TestChainNode } from "./test-chain";
import { startTestApp, type TestApp, type TestAppOptions } from "./test-app";

/** Runs at the file's end, after the app has stopped and before the chain does (a proxy in front of the node, say). */
export type Defer = (close: () => unknown) => void;

export interface ChainAppOptions {
  /**
   * "shared" (the default): a fresh registry on this Vitest worker's node, which other files use too.
   * "own": a node of the file's own, of the run's kind; or the node to start. A file needs its own
   * node when it changes the node for good: reorgs and snapshots, fees, mining stopped, a node
   * stopped, or a node of another kind.
   */
  node?: "shared" | "own" | TestChainNode;
  /** How many operators the registry has (the app's SIGNER_PRIVATE_KEYS). */
  signers?: number;
  /** An HTTPS callback receiver, and the app's environment to deliver to it (DELIVERY_ENV). */
  receiver?: boolean;
  /** The app reaches the node through a production node's rules and refusals (production-node-proxy.ts). */
  productionNode?: boolean;
  /** The app's environment over the chain's, or a function of the chain for what depends on it. */
  env?: Record<string, string> | ((chain: TestChain, defer: Defer) => Record<string, string> | Promise<Record<string, string>>);
  /** How the app reaches its database (a function: for what the file starts in a beforeAll of its own); false: no app, the chain alone. */
  app?: TestAppOptions | (() => TestAppOptions) | false;
}

/** What useChainApp made for the file: read in tests and hooks, once its beforeAll has run. */
export interface ChainApp {
  readonly chain: TestChain;
  readonly testApp: TestApp;
  /** An organization created for the file, and an API client with its key. */
  readonly organization: { ticketeerId: string; key: string; prefix: string; webhookSecret: string };
  readonly ticketeerId: string;
  readonly api: ApiClient;
  readonly receiver: HttpsReceiver;
  readonly productionNode: ProductionNodeProxy;
  /** The environment of another service process on the same chain, database and Redis key prefix (worker-process.ts). */
  readonly sameLedgerEnv: Record<string, string>;
}

/**
 * The end-to-end test file's chain and app: a registry on a chain, the real application on a
 * database of its own configured for it, an organization with an API client, and optionally an
 * HTTPS callback receiver; started before the file's tests, stopped after them (app first, then
 * what `defer` was given, then the chain).
 */
export function useChainApp(options: ChainAppOptions = {}): ChainApp {
  const made: Partial<Record<keyof ChainApp, unknown>> = {};
  const deferred: (() => unknown)[] = [];
  beforeAll(async () => {
    const [chain, receiver] = await Promise.all([chainFor(options), options.receiver ? startHttpsReceiver() : undefined]);
    const productionNode = options.productionNode ? await startProductionNodeProxy(chain.url) : undefined;
    if (productionNode) deferred.push(() => productionNode.close());
    Object.assign(made, { chain, receiver, productionNode });
    if (options.app === false) return;
    const env = typeof options.env === "function" ? await options.env(chain, (close) => deferred.push(close)) : options.env;
    const appOptions = typeof options.app === "function" ? options.app() : options.app;
    const testApp = await startTestApp(
      { ...chain.env, ...(productionNode ? { CHAIN_RPC_URL: productionNode.url } : {}), ...(options.receiver ? DELIVERY_ENV : {}), ...env },
      appOptions,
    );
    const organization = await testApp.organization();
    const sameLedgerEnv = { ...chain.env, DATABASE_URL: testApp.databaseUrl, REDIS_KEY_PREFIX: testApp.config.redis.keyPrefix };
    Object.assign(made, { testApp, organization, ticketeerId: organization.ticketeerId, api: apiClient(testApp.baseUrl, organization.key), sameLedgerEnv });
  });
  afterAll(async () => {
    await (made.testApp as TestApp | undefined)?.close();
    for (const close of deferred.reverse()) await close();
    await Promise.all([(made.receiver as HttpsReceiver | undefined)?.close(), (made.chain as TestChain | undefined)?.stop()]);
  });
  return new Proxy(made, {
    get(target, name) {
      const value = target[name as keyof ChainApp];
      // A clear error for a part read too early or not asked for, instead of "cannot read properties of undefined".
      if (value === undefined && typeof name === "string" && PARTS.has(name)) {
        throw new Error(`useChainApp has no ${name} (yet): read it in a test or hook, and ask for it in the options`);
      }
      return value;
    },
  }) as ChainApp;
}

const PARTS = new Set<string>(["chain", "testApp", "organization", "ticketeerId", "api", "receiver", "productionNode", "sameLedgerEnv"]);

async function chainFor({ node = "shared", signers = 1 }: ChainAppOptions): Promise<TestChain> {
  if (node !== "shared") return startTestChain(signers, node === "own" ? defaultChainNode() : node);
  const chainNode = defaultChainNode();
  const url = sharedNodeUrl(chainNode.kind);
  return url === undefined ? startTestChain(signers, chainNode) : deployTestChain(url, signers, chainNode);
}
