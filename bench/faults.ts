import { parseRunOptions } from "./soak/options";
import { runSoak } from "./soak/soak-run";

/**
 * `npm run faults -- --minutes N [--rate R] [--fault-every SECONDS]`: the soak's load while, in turn,
 * the worker is SIGKILLed and restarted, the run's Redis is restarted empty, and the chain node is
 * made unreachable for a while. Proves that nothing accepted was lost or applied twice and reports
 * how fast the pipeline recovered from each fault. Exit code 1 when a check fails.
 */
const REDIS_DOWN_MS = 3_000;
const CHAIN_DOWN_MS = 10_000;

async function main(): Promise<void> {
  const options = parseRunOptions(process.argv.slice(2));
  const passed = await runSoak(options, { everyMs: options.faultEvery * 1000, redisDownMs: REDIS_DOWN_MS, chainDownMs: CHAIN_DOWN_MS });
  process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
