import { parseArgs } from "node:util";

import { FAULT_NAMES, type FaultName } from "./faults/fault-schedule";

export interface RunOptions {
  minutes: number;
  /** Actions per second. */
  rate: number;
  /** Tickets whose registry view is compared with the ledger one by one. */
  sample: number;
  /** Seconds between faults (fault runs only). */
  faultEvery: number;
  /** The faults injected in turn (fault runs only): every kind unless --faults names some. */
  faults: FaultName[];
  /** Signer keys the service writes with (SIGNER_PRIVATE_KEYS): the chain node's funded development accounts #1 to #N. */
  signers: number;
  /** Worker-role processes (APP_ROLE=worker) beside the api. */
  workers: number;
}

/** Development accounts #1 to #19 of the chain node (#0 deploys and administers the registry). */
export const MAX_SIGNERS = 19;
const MAX_WORKERS = 8;

const USAGE = `options: --minutes N (default 5) --rate ACTIONS_PER_SECOND (default 100) --sample TICKETS (default 1000) --signers N (default 1, at most ${MAX_SIGNERS}) --workers M (default 1, at most ${MAX_WORKERS}) [--fault-every SECONDS (default 20) --faults ${FAULT_NAMES.join(",")} (default: all, in this order); npm run faults, which runs on Anvil]`;

/** The command line of `npm run soak` and `npm run faults`; a bad value stops with what is wrong. */
export function parseRunOptions(argv: string[]): RunOptions {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        minutes: { type: "string" },
        rate: { type: "string" },
        sample: { type: "string" },
        "fault-every": { type: "string" },
        faults: { type: "string" },
        signers: { type: "string" },
        workers: { type: "string" },
      },
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
    faults: faultList(values.faults),
    signers: whole(values, "signers", MAX_SIGNERS),
    workers: whole(values, "workers", MAX_WORKERS),
  };
}

function faultList(raw: string | undefined): FaultName[] {
  if (raw === undefined) return [...FAULT_NAMES];
  const names = raw.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(FAULT_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) throw new Error(`--faults takes a comma-separated list of ${FAULT_NAMES.join(", ")}; got "${raw}"\n${USAGE}`);
  return names as FaultName[];
}

function positive(values: Record<string, string | undefined>, name: string, fallback: number, max: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be a number above 0 and at most ${max}, got "${raw}"\n${USAGE}`);
  return value;
}

function whole(values: Record<string, string | undefined>, name: string, max: number): number {
  const value = positive(values, name, 1, max);
  if (!Number.isInteger(value)) throw new Error(`--${name} must be a whole number, got "${values[name]}"\n${USAGE}`);
  return value;
}
