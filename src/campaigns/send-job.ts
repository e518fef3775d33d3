import { z } from 'zod';

/** One job = one recipient. No template text and no secrets: those stay with the campaign. */
export const sendJobSchema = z.object({
  campaignId: z.string(),
  row: z.number().int().positive(),
  to: z.string().startsWith('+'),
  /** Variable values, in the order of the campaign plan's slots. */
  values: z.array(z.string()),
  headerLink: z.string().optional(),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/** Deterministic, so the same row enqueued twice is the same job (BullMQ ignores the second). */
export function sendJobId(campaignId: string, row: number): string {
  return `${campaignId}-${row}`;
}

/** Where the producer puts jobs; src/queue/send-queue.ts implements it with BullMQ. */
export interface SendJobQueue {
  enqueue(jobs: readonly SendJob[]): Promise<void>;
}
