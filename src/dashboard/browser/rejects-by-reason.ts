import type { RefusedRow } from './api-answers.js';

export interface ReasonGroup {
  reason: string;
  rows: number;
  examples: RefusedRow[];
}

/** A dry run's refused rows by reason, in order of first appearance: how many, and the first few as examples. */
export function rejectsByReason(rejects: readonly RefusedRow[], examples: number): ReasonGroup[] {
  const groups = new Map<string, ReasonGroup>();
  for (const r of rejects) {
    let group = groups.get(r.reason);
    if (group === undefined) {
      group = { reason: r.reason, rows: 0, examples: [] };
      groups.set(r.reason, group);
    }
    group.rows++;
    if (group.examples.length < examples) group.examples.push(r);
  }
  return [...groups.values()];
}
