import { parseArgs } from "node:util";

export interface RunOptions {
  minutes: number;
  /** Actions per second. */
  rate: number;
  /** Tickets whose registry view is compared with the ledger one by one. */
  sample: number;
  /** Seconds between faults (fault runs only). */
  faultEvery: number;
}

const USAGE =
  "options: --minutes N (default 5) --rate ACTIONS_PER_SECOND (default 100) --sample TICKETS (default 1000) [--fault-every SECONDS (default 20; npm run faults)]";

/** The command line of `npm run soak` and `npm run faults`; a bad value stops with what is wrong. */
export function parseRunOptions(argv: string[]): RunOptions {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: { minutes: { type: "string" }, rate: { type: "string" }, sample: { type: "string" }, "fault-every": { type: "string" } },
      strict: true,
    }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  return {
    minutes: positive(values, "minutes", 5, 24 * 60),
    rate: positive(values, "rate", 100, 10_000),
    sample: positive(values, "sample", 1_000, 1_000_000),
    faultEvery: positive(values, "fault-every", 20, 3_600),
  };
}

function positive(values: Record<string, string | undefined>, name: string, fallback: number, max: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be a number above 0 and at most ${max}, got "${raw}"\n${USAGE}`);
  return value;
}
