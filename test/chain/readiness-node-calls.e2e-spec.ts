import { describe, expect, it } from "vitest";

import { useChainApp } from "../support/chain-app";

/**
 * Readiness is public (no key, no limit: probes and load balancers call it), so its chain check must
 * not cost a node call per request: one check serves every request for about a second, and requests
 * that come while it runs wait for it. Counted through a JSON-RPC proxy in front of the node, on an
 * api instance (it runs no writer or watcher that would call the node on its own).
 */
const chainApp = useChainApp({ productionNode: true, env: { APP_ROLE: "api" } });

const REQUESTS = 2_000;
const CONCURRENCY = 50;

describe("GET /health/ready against the node", () => {
  it(`answers ${REQUESTS} requests with about one chain check per second, not one each`, async () => {
    chainApp.productionNode.resetCounts();
    const started = performance.now();
    const statuses = new Set<number>();
    for (let sent = 0; sent < REQUESTS; sent += CONCURRENCY) {
      const answers = await Promise.all(Array.from({ length: CONCURRENCY }, () => fetch(`${chainApp.testApp.baseUrl}/health/ready`)));
      for (const answer of answers) {
        statuses.add(answer.status);
        await answer.body?.cancel();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    expect([...statuses]).toEqual([200]);
    // One check per started second of the run, and one more for the one under way at its end.
    const checks = chainApp.productionNode.count("eth_blockNumber");
    expect(checks).toBeGreaterThan(0);
    expect(checks).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  });
});
