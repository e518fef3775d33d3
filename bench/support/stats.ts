/** Small statistics for the benchmark: medians of runs and sliding-window counts. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

/**
 * The most timestamps in any window [t, t + windowMs), over sorted times: what a server
 * counting a sliding second sees at its busiest. Two pointers, O(n).
 */
export function busiestWindow(sortedTimes: readonly number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < sortedTimes.length; end++) {
    const endTime = sortedTimes[end] ?? 0;
    while ((sortedTimes[start] ?? Infinity) <= endTime - windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Messages per second from first to last timestamp (n messages over the span between them). */
export function ratePerSecond(sortedTimes: readonly number[]): number {
  const first = sortedTimes[0];
  const last = sortedTimes[sortedTimes.length - 1];
  if (first === undefined || last === undefined || last === first) return Number.NaN;
  return sortedTimes.length / ((last - first) / 1000);
}

/** Median of a per-run field that may be missing (e.g. CPU where /proc is unreadable). */
export function medianOf<T>(runs: readonly T[], pick: (run: T) => number | undefined): number {
  const values = runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v));
  return median(values);
}
