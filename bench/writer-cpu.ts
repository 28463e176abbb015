import type { ChainNodeKind } from "../scripts/stack/chain-node";
import { type Figure, meetsRatioGoal, ratioOf } from "./figures";
import { CHAIN_NODE_LABELS } from "./stack/bench-chain";
import type { CpuUsage } from "./stack/cpu-usage";

/** The goal: the service's CPU per confirmed ticket within this many times the floor of encoding and signing the same batches. */
export const WRITER_CPU_RATIO_GOAL = 3;

/** The process group of the service (APP_ROLE=all) in the CPU sampler. */
export const SERVICE_GROUP = "service";

/**
 * The CPU the service and PostgreSQL used per ticket confirmed while they made the backlog final
 * (from the last sale's acceptance until the last was confirmed: the writer signing, sending,
 * watching receipts and finalizing, and the callbacks of what it finalized going out), beside the
 * floor measured in the same run: this process building, encoding and signing the same batches with
 * nothing else. Prints both and returns the service's figure and PostgreSQL's.
 */
export function writerCpuFigures(node: ChainNodeKind, usage: CpuUsage, confirmedTickets: number, floorMicrosPerTicket: number): Figure[] {
  const micros = (group: string) => ((usage.groups.find((share) => share.group === group)?.seconds ?? 0) * 1e6) / confirmedTickets;
  const service = micros(SERVICE_GROUP);
  const postgres = micros("postgres");
  const floor = Math.max(floorMicrosPerTicket, 0.01);
  const label = CHAIN_NODE_LABELS[node];
  const figures: Figure[] = [
    {
      name: `End to end on ${label}: the service's CPU per confirmed ticket`,
      value: round(service),
      unit: "µs/ticket",
      target: round(WRITER_CPU_RATIO_GOAL * floor),
      better: "lower",
      limit: round(floor),
      limitName: "encoding the same batches and signing them, with nothing else, in the same run",
      ratio: ratioOf(service, floor),
      ratioGoal: WRITER_CPU_RATIO_GOAL,
    },
    {
      name: `End to end on ${label}: PostgreSQL's CPU per confirmed ticket`,
      value: round(postgres),
      unit: "µs/ticket",
      // No floor of its own: its target is not to bind more than the service's work on the same cores.
      target: round(service),
      better: "lower",
      limit: round(service),
      limitName: "the service's CPU per confirmed ticket in the same run",
      ratio: ratioOf(postgres, Math.max(service, 0.01)),
    },
  ];
  console.log(
    `CPU while the backlog was made final (${usage.wallSeconds.toFixed(1)} s, ${confirmedTickets} tickets confirmed, the machine ${(usage.machineBusy * 100).toFixed(0)}% busy):`,
  );
  console.table([
    {
      "service µs/ticket": round(service),
      "PostgreSQL µs/ticket": round(postgres),
      "floor µs/ticket (encode + sign)": round(floor),
      "service / floor": figures[0].ratio,
      goal: `≤ ${WRITER_CPU_RATIO_GOAL}`,
      met: meetsRatioGoal(figures[0]) ? "yes" : "NO",
    },
  ]);
  return figures;
}

function round(micros: number): number {
  return Math.round(micros * 10) / 10;
}
