import { parseRunOptions } from "./soak/options";
import { runSoak } from "./soak/soak-run";

/**
 * `npm run soak -- --minutes N [--rate R] [--sample S] [--signers N] [--workers M]`: a bounded mixed
 * load of every action kind at a steady rate against the stack `npm start` runs, with the api and M
 * workers (default 1) as separate processes writing with N signer keys (default 1). Reports latency, throughput and memory, then proves that every accepted action ended
 * as intended on chain and was called back exactly once. Exit code 1 when a check fails.
 */
async function main(): Promise<void> {
  const passed = await runSoak(parseRunOptions(process.argv.slice(2)), null);
  process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
