import type { QueuedSend, SendJob } from '../send-job.js';
import type { FeedLimitOptions, LimitHeld } from '../send/messaging-reach.js';
import type { SendWindow } from './send-window.js';

/* What the ledger's feed takes and answers (CampaignLedger.feed, src/campaigns/ledger.ts). */

/** How a phone number's feeder tops up its window of jobs. */
export interface FeedOptions extends FeedLimitOptions {
  /** Jobs fed and not done, at most: BullMQ holds no more than this for the number. */
  windowSize: number;
  /** Feed only when at least this much room is free (fewer, larger feeds). */
  minBatch: number;
  /** At most this many rows in one call (Redis runs nothing else meanwhile); absent: all the room. */
  mostRows?: number;
  /** Most rows a job carries (groupSizeFor the number's rate); absent or 1: one job a row. */
  groupSize?: number;
  /** A job fed this long ago and not done is handed out again (its enqueue may have been lost). */
  refreshAfterMs: number;
  refreshMost: number;
  /** Campaigns with a send window: their lanes open now (one not in the map feeds nothing). */
  openLanes?: ReadonlyMap<string, readonly number[]>;
}

/** A phone number's campaigns with a send window, and their lanes, as the feeder needs them. */
export interface WindowedCampaigns {
  /** The ledger's clock when read (Redis's, src/redis/ledger/ledger-clock.ts): the one the feed judges by. */
  now: number;
  campaigns: { campaignId: string; window: SendWindow; lanes: string[][] }[];
}

export interface FeedResult {
  /** The rows fed, in the order to run them (campaigns interleaved), as jobs of one row. */
  jobs: SendJob[];
  /** With a group size above 1: the jobs to enqueue, the same rows in the same order, several to a job. */
  groups?: QueuedSend[];
  /** Jobs fed before whose enqueue may have been lost: enqueue again (BullMQ ignores one that exists). */
  refresh: QueuedSend[];
  /** What this feed decided about whole campaigns, for the log. */
  events: FeedEvent[];
  /** Set when the messaging limit held a new recipient back in this feed. */
  limitHeld?: LimitHeld;
}

export type FeedEvent =
  /** Its first rows were fed at `at`; `startsAt` is its scheduled start, if it had one. */
  | { kind: 'started'; campaignId: string; startsAt: number | undefined; at: number }
  /** Its `expiresAt` passed: `rows` not fed expired. */
  | { kind: 'expired'; campaignId: string; rows: number }
  /** Its `startDeadline` passed before it started: cancelled, `rows` with it. */
  | { kind: 'deadline'; campaignId: string; rows: number }
  /** The expiry or the deadline gave its last rows their answer: it is complete. */
  | { kind: 'completed'; campaignId: string };
