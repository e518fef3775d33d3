import { z } from 'zod';

/**
 * One job = one row, identified and nothing more: the recipient and the values stay in the
 * ledger row, which the worker reads when it claims the row. So a job holds no personal data,
 * and an edited job cannot redirect a message.
 */
export const sendJobSchema = z.object({
  campaignId: z.string(),
  row: z.number().int().positive(),
  /**
   * Which job of the row this is: 0 (absent) for the first one fed, then 1, 2, … for each
   * later one (a row parked by a pause, chosen by `campaign retry`). The ledger lets only the
   * row's current job claim it, so a row never has two live jobs.
   */
  requeue: z.number().int().positive().optional(),
  /** How many times this job was already delayed for the pair rate limit (131056): the next delay doubles. */
  pairDelays: z.number().int().positive().optional(),
  /** Jobs written by builds before 0.1.0 carry these; they are ignored (the ledger row is what is sent). */
  to: z.string().optional(),
  values: z.array(z.string()).optional(),
  headerLink: z.string().optional(),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/** What one send carries, as the ledger row holds it: built into the request by messageForRow. */
export interface RowToSend {
  campaignId: string;
  row: number;
  to: string;
  values: string[];
  headerLink?: string | undefined;
}

/**
 * Deterministic, so the same row fed twice is the same job (BullMQ ignores the second).
 * The feed script (src/redis/ledger/ledger-scripts.ts, jobIdOf) builds the same IDs in Lua.
 */
export function sendJobId(campaignId: string, row: number, requeue = 0): string {
  return requeue === 0 ? `${campaignId}-${row}` : `${campaignId}-${row}-r${requeue}`;
}

/** The job a job ID names (the inverse of sendJobId), or undefined for an ID that is not one. */
export function parseSendJobId(id: string): SendJob | undefined {
  // Campaign IDs may hold dashes; the row (and requeue number) are the digits at the end.
  const match = /^(.+)-(\d+)(?:-r(\d+))?$/.exec(id);
  if (match === null) return undefined;
  const job: SendJob = { campaignId: match[1] ?? '', row: Number(match[2]) };
  const requeue = Number(match[3] ?? 0);
  if (requeue > 0) job.requeue = requeue;
  return job;
}

/** Where the feeder puts jobs; src/queue/send-queue.ts implements it with BullMQ. */
export interface SendJobQueue {
  enqueue(jobs: readonly SendJob[]): Promise<void>;
}
