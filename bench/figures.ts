/** One benchmark figure as `npm run bench` reports it and writes it to bench/results.json. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target: number;
  better: "lower" | "higher";
}

export function meetsTarget(figure: Figure): boolean {
  return figure.better === "lower" ? figure.value <= figure.target : figure.value >= figure.target;
}
