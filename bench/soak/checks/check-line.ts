/** One line of a run's verdict. */
export interface CheckLine {
  check: string;
  result: "pass" | "FAIL" | "info";
  detail: string;
}

export const pass = (check: string, detail: string): CheckLine => ({ check, result: "pass", detail });
export const fail = (check: string, detail: string): CheckLine => ({ check, result: "FAIL", detail });
export const info = (check: string, detail: string): CheckLine => ({ check, result: "info", detail });
export const verdict = (ok: boolean, check: string, detail: string): CheckLine => (ok ? pass : fail)(check, detail);

/** "a: 3, b: 1" from a list of names. */
export function countsOf(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name}: ${count}`).join(", ");
}

/** The first few items of a list, for a failure's detail. */
export const firstFew = (items: string[], count = 3) => items.slice(0, count).join("; ") + (items.length > count ? `; … (${items.length} in all)` : "");
