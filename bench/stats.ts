/** The q-quantile (0..1) of `values` by the nearest-rank method. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}
