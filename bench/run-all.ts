import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { runApiBench } from "./api-bench";
import { runCallbacksBench } from "./callbacks-bench";
import { runDrainBench } from "./drain-bench";
import { runE2eBench } from "./e2e-bench";
import { runFairnessBench } from "./fairness-bench";
import { runFinalityBench } from "./finality-bench";
import { type Figure, meetsRatioGoal, meetsTarget } from "./figures";
import { measureGasFigures } from "./gas-figures";
import { machineInfo } from "./machine";
import { runMetadataBench } from "./metadata-bench";
import { runOnsaleBench } from "./onsale-bench";

/**
 * `npm run bench`: every benchmark one after the other, then one table of their figures beside the
 * targets. Writes bench/results.json (the list of figures) and bench/results.meta.json (date and
 * machine) when every benchmark ran; a missed target is reported, a benchmark that crashes makes
 * the exit code 1 and leaves the last complete results in place.
 */
const BENCHMARKS: { name: string; command: string; run: () => Promise<Figure[]> }[] = [
  { name: "API acceptance", command: "npm run bench:api", run: runApiBench },
  { name: "Token metadata", command: "npm run bench:metadata", run: runMetadataBench },
  { name: "End to end to chain", command: "npm run bench:e2e", run: runE2eBench },
  { name: "Fairness between organizations", command: "npm run bench:fairness", run: runFairnessBench },
  { name: "Time to finality", command: "npm run bench:finality", run: () => runFinalityBench() },
  { name: "Callbacks", command: "npm run bench:callbacks", run: runCallbacksBench },
  { name: "API while the worker drains", command: "npm run bench:drain -- --layout split", run: () => runDrainBench(["split"]) },
  { name: "On-sale", command: "npm run bench:onsale", run: () => runOnsaleBench() },
  { name: "Gas", command: "npm run gas", run: measureGasFigures },
];

const RESULTS_FILE = join(__dirname, "results.json");
const META_FILE = join(__dirname, "results.meta.json");

async function main(): Promise<void> {
  const machine = await machineInfo();
  const figures: Figure[] = [];
  const crashed: string[] = [];
  for (const benchmark of BENCHMARKS) {
    console.log(`\n== ${benchmark.name} (${benchmark.command})`);
    try {
      figures.push(...(await benchmark.run()));
    } catch (error) {
      console.error(`${benchmark.name} crashed:`, error);
      crashed.push(benchmark.name);
    }
  }
  printSummary(figures, crashed, machine);
  if (crashed.length > 0) {
    console.error(`\nNot written: ${RESULTS_FILE} keeps the last complete run because ${crashed.join(", ")} crashed.`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(RESULTS_FILE, JSON.stringify(figures, null, 2) + "\n");
  writeFileSync(META_FILE, JSON.stringify({ ...machine, benchmarks: BENCHMARKS.map(({ name, command }) => ({ name, command })) }, null, 2) + "\n");
  console.log(`\nWrote ${RESULTS_FILE} and ${META_FILE}`);
}

function printSummary(figures: Figure[], crashed: string[], machine: Awaited<ReturnType<typeof machineInfo>>): void {
  console.log(
    `\n== Summary: ${machine.date}, ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}`,
  );
  console.table([
    ...figures.map((figure) => ({
      figure: figure.name,
      value: `${figure.value.toLocaleString("en-US")} ${figure.unit}`,
      target: `${figure.better === "lower" ? "≤" : "≥"} ${figure.target.toLocaleString("en-US")} ${figure.unit}`,
      met: meetsTarget(figure) ? "yes" : "NO",
      limit: figure.limit === undefined ? "" : `${figure.limit.toLocaleString("en-US")} ${figure.unit}`,
      ratio: figure.ratio === undefined ? "" : String(figure.ratio),
      "ratio goal":
        figure.ratioGoal === undefined ? "" : `${figure.better === "lower" ? "≤" : "≥"} ${figure.ratioGoal}: ${meetsRatioGoal(figure) ? "yes" : "NO"}`,
    })),
    ...crashed.map((name) => ({ figure: name, value: "crashed", target: "", met: "NO" })),
  ]);
  const limits = figures.filter((figure) => figure.limitName !== undefined);
  if (limits.length > 0) {
    console.log("\nLimits, each measured in the same run: what each is");
    console.table(limits.map((figure) => ({ figure: figure.name, limit: figure.limitName, ...(figure.goal === undefined ? {} : { goal: figure.goal }) })));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
