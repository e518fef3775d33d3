import { z } from 'zod';

/** One job = one recipient. No template text and no secrets: those stay with the campaign. */
export const sendJobSchema = z.object({
  campaignId: z.string(),
  row: z.number().int().positive(),
  to: z.string().startsWith('+'),
  /** Variable values, in the order of the campaign plan's slots. */
  values: z.array(z.string()),
  headerLink: z.string().optional(),
  /**
   * Which job of the row this is: 0 (absent) for the one the producer made, then 1, 2, …
   * for each requeue (resume after a pause, `campaign retry`). The ledger lets only the
   * row's current job claim it, so a row never has two live jobs.
   */
  requeue: z.number().int().positive().optional(),
  /** How many times this job was already delayed for the pair rate limit (131056): the next delay doubles. */
  pairDelays: z.number().int().positive().optional(),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/** Deterministic, so the same row enqueued twice is the same job (BullMQ ignores the second). */
export function sendJobId(campaignId: string, row: number, requeue = 0): string {
  return requeue === 0 ? `${campaignId}-${row}` : `${campaignId}-${row}-r${requeue}`;
}

/** Where the producer puts jobs; src/queue/send-queue.ts implements it with BullMQ. */
export interface SendJobQueue {
  enqueue(jobs: readonly SendJob[]): Promise<void>;
}
