import { groupRows, type SendGroup, type SendJob } from '../campaigns/send-job.js';
import type { AttemptContext, SendOutcome, SendProcessor } from '../campaigns/send/send-processor.js';
import type { RequestSlots } from '../campaigns/send/request-slots.js';

/** What BullMQ must do with a group job once each of its rows had its turn. */
export type GroupOutcome =
  /** Every row has its answer (or was parked, or belongs to a newer job): the group is done. */
  | { kind: 'done'; rows: number }
  /** The worker is stopping: the group goes back to the queue, its answered rows answer `settled` when it runs again. */
  | { kind: 'release' }
  /** Meta throttled the number: the queue waits `ms`, then the group runs again. */
  | { kind: 'throttle-number'; ms: number }
  /** A row failed in a way worth another attempt: the group fails this attempt (BullMQ's backoff and attempts). */
  | { kind: 'retry'; error: Error }
  /** Rows hit the pair rate limit: the group waits `ms`, those rows' delays counted in `pairDelays`. */
  | { kind: 'delay-recipient'; ms: number; pairDelays: Record<string, number> };

/**
 * A group job's rows, each through the processor exactly as a job of one row would go
 * (slot, claim, request, answer), all started at once so their slots are reserved in one
 * call and their claims and answers gathered into few; `slots` bounds the rows between
 * claim and answer across the worker (SEND_CONCURRENCY). The rows' outcomes are folded into the
 * group's: a row needing another attempt does not hold up the others, and when the group
 * runs again the rows already answered only answer `settled` to their claim, so no row is
 * sent twice. A row whose run threw is retried the same way.
 */
export async function runSendGroup(
  group: SendGroup,
  processor: SendProcessor,
  context: Omit<AttemptContext, 'pairDelays'>,
  slots: RequestSlots,
): Promise<GroupOutcome> {
  const rows = groupRows(group);
  const settled = await Promise.allSettled(
    rows.map((job) => processor.process(job, { ...context, pairDelays: job.pairDelays ?? 0, requests: slots })),
  );
  return foldOutcomes(rows, settled, group.pairDelays ?? {});
}

/** Release first (the worker stops), then a throttle, a retry, an error, a pair delay; else done. */
export function foldOutcomes(
  rows: readonly SendJob[],
  settled: readonly PromiseSettledResult<SendOutcome>[],
  pairDelaysBefore: Readonly<Record<string, number>>,
): GroupOutcome {
  const outcomes: SendOutcome[] = [];
  let thrown: unknown;
  for (const result of settled) {
    if (result.status === 'fulfilled') outcomes.push(result.value);
    else thrown ??= result.reason;
  }
  if (outcomes.some((o) => o.kind === 'release')) return { kind: 'release' };
  const throttles = outcomes.flatMap((o) => (o.kind === 'throttle-number' ? [o.ms] : []));
  if (throttles.length > 0) return { kind: 'throttle-number', ms: Math.max(...throttles) };
  const retry = outcomes.find((o): o is Extract<SendOutcome, { kind: 'retry' }> => o.kind === 'retry');
  if (retry !== undefined) return { kind: 'retry', error: retry.error };
  if (thrown !== undefined) return { kind: 'retry', error: thrown instanceof Error ? thrown : new Error('a row of the group failed') };
  let ms = 0;
  const pairDelays: Record<string, number> = { ...pairDelaysBefore };
  settled.forEach((result, i) => {
    const row = rows[i];
    if (result.status !== 'fulfilled' || result.value.kind !== 'delay-recipient' || row === undefined) return;
    ms = Math.max(ms, result.value.ms);
    const key = `${row.campaignId} ${row.row}`;
    pairDelays[key] = (pairDelays[key] ?? 0) + 1;
  });
  if (ms > 0) return { kind: 'delay-recipient', ms, pairDelays };
  return { kind: 'done', rows: rows.length };
}
