import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One benchmark figure as `npm run bench` reports it and writes it to bench/results.json. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target: number;
  better: "lower" | "higher";
  /**
   * What the same work costs without the service, measured in the same run (the chain node's own
   * capacity, PostgreSQL's COPY of the same rows, the receiver's own capacity, a reference
   * contract's gas), in `unit`; `limitName` says what it is.
   */
  limit?: number;
  limitName?: string;
  /** `value / limit`, rounded to two decimals. */
  ratio?: number;
  /** Our goal for `ratio` (≥ for `better: "higher"`, ≤ for `"lower"`), if there is one. */
  ratioGoal?: number;
  /** A goal in `unit` beside the target (the gas goals), if one is set. */
  goal?: number;
}

export function meetsTarget(figure: Figure): boolean {
  return figure.better === "lower" ? figure.value <= figure.target : figure.value >= figure.target;
}

/** `value / limit` to two decimals. */
export function ratioOf(value: number, limit: number): number {
  return Math.round((value / limit) * 100) / 100;
}

/** Whether `figure.ratio` meets `figure.ratioGoal`; undefined when either is missing. */
export function meetsRatioGoal(figure: Figure): boolean | undefined {
  if (figure.ratio === undefined || figure.ratioGoal === undefined) return undefined;
  return figure.better === "lower" ? figure.ratio <= figure.ratioGoal : figure.ratio >= figure.ratioGoal;
}

/** The limit column of a printed table: `1,234 unit (what), ratio 0.91 (goal ≥ 0.8: yes)`. */
export function describeLimit(figure: Figure): string {
  if (figure.limit === undefined) return "";
  const met = meetsRatioGoal(figure);
  const goal = figure.ratioGoal === undefined ? "" : ` (goal ${figure.better === "lower" ? "≤" : "≥"} ${figure.ratioGoal}: ${met ? "yes" : "NO"})`;
  return `${figure.limit.toLocaleString("en-US")} ${figure.unit}${figure.limitName ? ` (${figure.limitName})` : ""}, ratio ${figure.ratio}${goal}`;
}

const RESULTS_FILE = join(__dirname, "results.json");

/** A benchmark run alone: replaces its figures in bench/results.json (or adds them), leaving the others as they are. */
export function writeFigures(figures: Figure[]): void {
  if (figures.length === 0) return;
  const existing = existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as Figure[]) : [];
  const names = new Set(figures.map((figure) => figure.name));
  writeFileSync(RESULTS_FILE, JSON.stringify([...existing.filter((figure) => !names.has(figure.name)), ...figures], null, 2) + "\n");
  console.log(`Wrote ${figures.length} figures to ${RESULTS_FILE}`);
}
