import type { CampaignDefinition, CampaignStatus, RowRecord, RowStatus } from './campaign.js';

/** A row the producer read: to be sent, or refused before sending with a reason. */
export type IngestedRow =
  | { row: number; phone: string; status: 'queued' }
  | { row: number; phone: string; status: 'rejected' | 'skipped'; errorCode: string; errorDetail: string };

/** What the worker learned about one send attempt. */
export type Settlement =
  | { status: 'sent'; wamid: string }
  | { status: 'failed' | 'unknown'; errorCode: string; errorDetail: string }
  /** BullMQ gave up on the job: `unknown` if it was caught mid-send, otherwise `failed`. */
  | { status: 'abandoned'; errorCode: string; errorDetail: string }
  /** Not final: the row goes back to waiting for another attempt. */
  | { status: 'queued'; errorCode: string; errorDetail: string };

export interface SettleResult {
  /** The row's status afterwards (the earlier answer, if one was already final). */
  status: RowStatus;
  /** This answer was the campaign's last one: the campaign is now complete. */
  completedCampaign: boolean;
}

export type ClaimResult =
  /** `attempt` counts the requests made for this row, this one included. */
  | { outcome: 'claimed'; attempt: number }
  /** The row already has an answer (a duplicate job, or a retry after the answer was recorded). */
  | { outcome: 'settled'; status: RowStatus }
  /** An earlier attempt was `sending` and never recorded its answer: it may have reached Meta. */
  | { outcome: 'in-doubt'; attempts: number };

/**
 * The campaign ledger: per-row state and counters. The campaign logic depends on this
 * interface only; src/redis/redis-ledger.ts implements it.
 */
export interface CampaignLedger {
  createCampaign(definition: CampaignDefinition): Promise<void>;
  getCampaign(id: string): Promise<CampaignDefinition | undefined>;
  /**
   * Records rows read from the CSV. Idempotent per row number: a row already in the ledger
   * keeps its state. Returns the row numbers that still need a job (new, or still queued).
   */
  recordIngested(campaignId: string, rows: readonly IngestedRow[]): Promise<number[]>;
  /** All rows are read: from now on the campaign can complete. True if it completed now. */
  finishIngest(campaignId: string): Promise<boolean>;
  /** Marks the row `sending` (and counts the attempt) before the request leaves. */
  claim(campaignId: string, row: number): Promise<ClaimResult>;
  /** First final answer wins; later ones are ignored. */
  settle(campaignId: string, row: number, settlement: Settlement): Promise<SettleResult>;
  status(campaignId: string): Promise<CampaignStatus | undefined>;
  /** Rows in row order, in pages, for reports of any size. */
  rows(campaignId: string, pageSize?: number): AsyncIterable<RowRecord[]>;
  listCampaigns(): Promise<string[]>;
}
