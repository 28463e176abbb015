import { parseRunOptions } from "./soak/options";
import { runSoak } from "./soak/soak-run";

/**
 * `npm run faults -- --minutes N [--rate R] [--signers N] [--workers M] [--fault-every SECONDS] [--faults worker,redis,unreachable,node-kill,oversized,underpriced,postgres,restore]`: the soak's load on Anvil as a
 * production-like chain (chain id 80002, 2-second blocks, 45M gas limit, 30 gwei base fee; a Hardhat
 * node cannot be restarted from a state file) behind the production-node proxy, while, in turn: the
 * worker is SIGKILLed and restarted (with several, each in its turn); the run's Redis is restarted empty; the chain node is made
 * unreachable for a while; the node is SIGKILLed and restarted on the same port from its state file,
 * some blocks and its transaction pool lost; and the node refuses every transaction for a while as
 * `oversized data`, then, the next time, as `transaction underpriced`; PostgreSQL is unreachable to
 * the service for a while (the API answers 503 meanwhile, never 500); and the database is dumped under load, restored
 * 10 s later with the services stopped and reconciled (`ledger reconcile`) before they start again. Proves that nothing accepted
 * was lost or applied twice and reports how fast the pipeline recovered from each fault. Exit code 1
 * when a check fails.
 */
const REDIS_DOWN_MS = 3_000;
const CHAIN_DOWN_MS = 10_000;
/** A process manager's restart delay. */
const NODE_DOWN_MS = 1_000;
/** The node is killed just before it writes its state again: it comes back this far behind, two or three 2-second blocks. */
const NODE_STATE_INTERVAL_SECONDS = 5;
const REFUSAL_MS = 10_000;
const DATABASE_DOWN_MS = 10_000;
/** restore: the load accepted between the dump and the services' stop is what the restore loses. */
const RESTORE_GO_ON_MS = 10_000;

async function main(): Promise<void> {
  const options = parseRunOptions(process.argv.slice(2));
  const passed = await runSoak(options, {
    everyMs: options.faultEvery * 1000,
    redisDownMs: REDIS_DOWN_MS,
    chainDownMs: CHAIN_DOWN_MS,
    nodeDownMs: NODE_DOWN_MS,
    nodeStateIntervalSeconds: NODE_STATE_INTERVAL_SECONDS,
    refusalMs: REFUSAL_MS,
    databaseDownMs: DATABASE_DOWN_MS,
    rotation: options.faults,
    restoreGoOnMs: RESTORE_GO_ON_MS,
  });
  process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
