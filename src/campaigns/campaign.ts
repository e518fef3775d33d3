import { z } from 'zod';

/** What a campaign sends, fixed when it is created. Stored in Redis, so parsed on the way back. */
export const campaignDefinitionSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  phoneNumberId: z.string(),
  template: z.object({
    name: z.string(),
    language: z.string(),
    parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
    /** Placeholder names in send order; the job carries values in the same order. */
    bodyVariables: z.array(z.string()),
    headerMedia: z.enum(['image', 'video', 'document']).optional(),
  }),
  source: z.object({
    file: z.string(),
    phoneColumn: z.string(),
    paramColumns: z.array(z.string()),
    headerImageColumn: z.string().optional(),
  }),
});
export type CampaignDefinition = z.infer<typeof campaignDefinitionSchema>;

/**
 * A row's life: `queued → sending → sent | failed`, or `rejected`/`skipped` at ingest.
 * `unknown`: a send may have left but its answer was lost (a worker died mid-request);
 * never resent blindly.
 */
export const ROW_STATUSES = ['queued', 'sending', 'sent', 'failed', 'rejected', 'skipped', 'unknown'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];
export const FINAL_STATUSES: readonly RowStatus[] = ['sent', 'failed', 'rejected', 'skipped', 'unknown'];

export interface RowRecord {
  row: number;
  phone: string;
  status: RowStatus;
  wamid?: string;
  errorCode?: string;
  errorDetail?: string;
  attempts: number;
}

export type CampaignCounts = Record<RowStatus, number> & { total: number };

export type CampaignState = 'ingesting' | 'running' | 'completed';

export interface CampaignStatus {
  id: string;
  state: CampaignState;
  counts: CampaignCounts;
  createdAt: number;
  finishedAt: number | undefined;
}

/** A row that reached a final state has an answer; a campaign is complete when all have one. */
export function isComplete(counts: CampaignCounts, ingestDone: boolean): boolean {
  const answered = FINAL_STATUSES.reduce((sum, status) => sum + counts[status], 0);
  return ingestDone && answered === counts.total;
}
