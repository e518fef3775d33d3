import type { MessagingLimit } from '../config/number-settings.js';
import type { TemplateInfoUpdate, TemplateStatusOutcome, TemplateStatusUpdate } from './template-status.js';
import type { CampaignDefinition, CampaignStatus, RowRecord, RowStatus } from './campaign.js';
import type { SendGroup, SendJob } from './send-job.js';
import type { FeedOptions, FeedResult, WindowedCampaigns } from './feed/feed-port.js';
export type { FeedEvent, FeedOptions, FeedResult, WindowedCampaigns } from './feed/feed-port.js';
export type { TemplateInfo, TemplateInfoUpdate, TemplateStatusOutcome, TemplateStatusUpdate } from './template-status.js';
import type { InDoubtDecisions } from './settle/in-doubt-decisions.js';
export type { InDoubtDecisions } from './settle/in-doubt-decisions.js';

/**
 * A row the producer read: to be sent, or refused before sending with a reason. A row to
 * send carries what the worker will send (recipient, values, header link): the worker takes
 * them from the ledger, never from the job, so an edited job cannot redirect a message.
 */
export type IngestedRow =
  /** `lane`: the row's send-window lane (recordLanes), for a campaign with `--window`. */
  | { row: number; phone: string; status: 'queued'; message: RowMessage; lane?: number }
  | { row: number; phone: string; status: 'rejected' | 'skipped'; errorCode: string; errorDetail: string };

/** What one row sends, as checked by the producer and kept in the ledger. */
export interface RowMessage {
  values: string[];
  headerLink: string | undefined;
  /**
   * Identifies the message (template, language, recipient, values, header link) without
   * holding them: the duplicate-send guard (ALREADY_SENT) compares these.
   */
  fingerprint: string;
}

/** A row skipped as ALREADY_SENT: another row sent the same message within the window (`detail` says which). */
export interface AlreadySent {
  row: number;
  detail: string;
}

/** What recordIngested did with a chunk. */
export interface IngestResult {
  /** Rows queued by this call (new, or reopened): they are in the backlog now, to be fed. */
  queued: number[];
  /** Rows turned into `skipped` ALREADY_SENT: another row sent the same message within the window. */
  alreadySent: AlreadySent[];
  /** Rows that were rejected by an earlier run and are now valid (queued again). */
  reopened: number;
}

/** The recipient and values of a claimed row, as the ledger holds them. */
export interface ClaimedRow {
  to: string;
  /** Undefined for a row written by a version that kept values only in the job. */
  values: string[] | undefined;
  headerLink: string | undefined;
}

/** What the worker learned about one send attempt. */
export type Settlement =
  | { status: 'sent'; wamid: string }
  /** Meta accepted it but holds it for quality assessment (`held_for_quality_assessment`): a status webhook settles it. */
  | { status: 'held'; wamid: string }
  /** `skipped`: a rule checked after the claim refused it (FREQUENCY_CAPPED), never sent. */
  | { status: 'failed' | 'unknown' | 'skipped'; errorCode: string; errorDetail: string }
  /** BullMQ gave up on the job: `unknown` if it was caught mid-send, otherwise `failed`. */
  | { status: 'abandoned'; errorCode: string; errorDetail: string }
  /** Not final: the row goes back to waiting for another attempt. */
  | { status: 'queued'; errorCode: string; errorDetail: string };

export interface SettleResult {
  /** The row's status afterwards (the earlier answer, if one was already final). */
  status: RowStatus;
  /** This answer was the campaign's last one: the campaign is now complete. */
  completedCampaign: boolean;
  /** This answer tipped the error-spike brake: the campaign is paused now. */
  pausedCampaign: boolean;
}

export type ClaimResult =
  /** `attempt` counts the requests made for this row, this one included. */
  | { outcome: 'claimed'; attempt: number; row: ClaimedRow }
  /**
   * The row already has an answer (a duplicate job, a retry after the answer was recorded),
   * or got one here (cancelled, expired, ALREADY_SENT): `completedCampaign` when that was the
   * campaign's last one.
   */
  | { outcome: 'settled'; status: RowStatus; completedCampaign?: boolean }
  /** An earlier attempt of this job was `sending` and never recorded its answer: it may have reached Meta. */
  | { outcome: 'in-doubt'; attempts: number }
  /** The campaign is paused: the row stays queued, back in the backlog under a new job number, for `resume`; this job ends. */
  | { outcome: 'parked' }
  /** A newer job owns this row (it was requeued), or another live job has it in flight: this one must do nothing. */
  | { outcome: 'stale' };

/**
 * Where an opt-out was learnt: the send that Meta answered with 131050 (campaign and row), or
 * the user's own message: an opt-out keyword or a `user_preferences` stop (campaign '', row 0).
 */
export interface OptOutSource {
  campaignId: string;
  row: number;
  /** ms since the epoch. */
  at: number;
  via?: 'keyword' | 'user_preferences' | 'operator' | undefined;
}

/** Why an operator command could not act on a campaign. */
export type ControlRefusal = 'missing' | 'cancelled' | 'completed';

export type PauseResult = { outcome: 'paused' | 'already-paused' } | { outcome: ControlRefusal };
export type ResumeResult = { outcome: 'resumed' | 'not-paused' } | { outcome: 'missing' | 'cancelled' };

/** Which finished rows `campaign retry` puts back in the queue. */
export interface RetrySelection {
  /** Failed rows with one of these error codes; empty = every failed row. */
  codes: readonly string[];
  failed: boolean;
  unknown: boolean;
  /**
   * A MARKETING campaign created without `--allow-us-marketing`: a row to a US number that
   * failed with 131049 is never chosen (Meta's pause of US marketing fails it every time).
   */
  keepUsMarketingFailed?: boolean;
}

export type CancelResult = { outcome: 'cancelled'; cancelled: number } | { outcome: 'missing' | 'completed' };

/** A status webhook's kind (reference §3.3). */
export type StatusKind = 'sent' | 'delivered' | 'read' | 'failed';

/** One status webhook (reference §3.3), as the ledger applies it. */
export interface StatusUpdate {
  /** The phone number ID the webhook was for (`metadata.phone_number_id`). */
  phoneNumberId: string;
  wamid: string;
  kind: StatusKind;
  /** Meta's timestamp, ms. */
  at: number;
  /** `biz_opaque_callback_data`: "campaign/row" on our sends. */
  callbackData?: string;
  /** failed: Meta's code and detail. */
  code?: string;
  detail?: string;
  /** Meta's `pricing` (once per message from v24): its category, whether billable, and the recipient's market. */
  pricing?: StatusPricing;
}

export interface StatusPricing {
  category: string;
  billable: boolean;
  market: string;
}

export interface StatusOutcome {
  /**
   * `applied`: the row changed; `same`: nothing new (a duplicate, a later delivered after a
   * read); `unmatched`: no row has this message yet (another tool's message, or our send not
   * recorded yet); `other`: its row is one no send answered (rejected, skipped, cancelled…).
   */
  outcome: 'applied' | 'same' | 'unmatched' | 'other';
  completedCampaign: boolean;
  /** This status recorded its row's billable `pricing` (cw_billable_messages_total counts it). */
  billed?: boolean;
}

import type { RetryPage } from './control/retry-page.js';
export type { RetryPage } from './control/retry-page.js';

/** Meta's customer-service window: 24 hours from the user's last message (reference §4). */
export const SERVICE_WINDOW_MS = 24 * 3_600_000;

/** A user's message (reference §3.4), as the ledger records it. */
export interface InboundUpdate {
  phoneNumberId: string;
  /** The user's WhatsApp ID (digits, no +). */
  waId: string;
  wamid: string;
  /** Meta's timestamp, ms: the 24-hour customer-service window runs from here. */
  at: number;
  /** `context.id`: the message it answers (a template's quick-reply or Flow button). */
  replyTo?: string;
  /** The button's payload (or label), or the interactive reply's ID. */
  reply?: string;
  /** A Flow's answer (`interactive.nfm_reply.response_json`), bounded as src/webhooks/flow-response.ts says. */
  flowResponse?: string;
  /** Its text or button is one of OPT_OUT_KEYWORDS. */
  optOut: boolean;
}

/** A `user_preferences` event (reference §3.5). */
export interface PreferenceUpdate {
  phoneNumberId: string;
  waId: string;
  value: 'stop' | 'resume';
  at: number;
}

/** A send-window lane's rows not fed yet. */
export interface LaneBacklog {
  lane: number;
  zones: string[];
  pending: number;
}

export type RescheduleResult = { outcome: 'rescheduled' } | { outcome: 'missing' | 'cancelled' | 'completed' | 'started' };

/*
 * The ledger's port, split by its consumers: each piece of campaign logic names the part it
 * uses (IngestLedger, SendLedger, ControlLedger, ReportLedger); CampaignLedger is all of
 * them. The reads several consumers share (getCampaign, status, isHeld) are declared once,
 * where they belong, and picked by the others.
 */

/**
 * Reading a CSV into a campaign (src/campaigns/ingest/producer.ts, src/cli/run/send.ts):
 * the campaign, its rows, the end of its ingest, and the opt-outs that skip rows.
 */
export interface IngestLedger extends Pick<ReportLedger, 'getCampaign' | 'status' | 'rows'>, Pick<DeliveryLedger, 'serviceWindowsOpen'> {
  createCampaign(definition: CampaignDefinition): Promise<void>;
  /** Records rows read from the CSV, idempotent per row number (record-ingested.lua says what each row becomes). */
  recordIngested(campaignId: string, phoneNumberId: string, rows: readonly IngestedRow[]): Promise<IngestResult>;
  /** The rows recordIngested would skip as ALREADY_SENT, written nowhere (a dry run's; prior-sends.lua). */
  priorSends(campaignId: string, phoneNumberId: string, rows: readonly { row: number; fingerprint: string }[]): Promise<AlreadySent[]>;
  /**
   * A campaign with a send window keeps its rows in lanes, one per set of time zones: lane
   * `index` holds rows whose recipients are in `zones`. Written before rows name the lane.
   */
  recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void>;
  /** The campaign's lanes (index → zones); empty without a send window. */
  lanes(campaignId: string): Promise<string[][]>;
  /** `--allow-repeat`: this campaign's rows are not checked against earlier sends. */
  allowRepeat(campaignId: string): Promise<void>;
  /**
   * Ctrl-C during ingest: the campaign pauses with `reason`, its file not read to the end (ingest-interrupted.lua); false when missing or
   * cancelled.
   */
  markIngestInterrupted(campaignId: string, reason: string): Promise<boolean>;
  /** A `send --campaign` continues an interrupted ingest: lifts that pause, and only that one (lift-ingest-pause.lua). True if lifted. */
  liftIngestPause(campaignId: string): Promise<boolean>;
  /** All rows are read (also after an interruption): from now on the campaign can complete. True if it completed now. */
  finishIngest(campaignId: string): Promise<boolean>;
  /** Every recipient opted out of marketing from this number's business portfolio, with where it was learnt. */
  optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>>;
  /** Every recipient whose marketing cap (131049) holds now on this number's business portfolio, with when its wait ends (ms). */
  marketingCaps(phoneNumberId: string): Promise<Map<string, number>>;
}

/**
 * Sending (src/campaigns/send/send-processor.ts, src/campaigns/feed/send-feeder.ts,
 * src/queue/send-worker.ts and abandoned-jobs.ts): the feed that tops up a number's window, and each job's claim and answer.
 */
export interface SendLedger extends Pick<ReportLedger, 'getCampaign'> {
  /**
   * Marks the row `sending` before the request leaves and returns what to send, or why not
   * (claim.lua). `phoneNumberId` (the campaign's) saves a read of its definition.
   */
  claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult>;
  /** Records a job's answer; the first final one wins (settle.lua). `phoneNumberId`: the campaign's, saves a read. */
  settle(job: SendJob, settlement: Settlement, phoneNumberId?: string): Promise<SettleResult>;
  /** A code that needs a human (expired token, locked account…): the row is parked for `resume` and the campaign pauses (halt.lua). */
  halt(
    job: SendJob,
    errorCode: string,
    errorDetail: string,
    phoneNumberId?: string,
    /** The code is the template's and the campaign took its hold (templateStatusOf): that pause stands. */
    templateHeld?: boolean,
  ): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }>;
  /** True while no send of this campaign may start (paused or cancelled). */
  isHeld(campaignId: string): Promise<boolean>;
  /** A send answered that its template is paused or disabled: this campaign gets the template's hold (template-status.lua). */
  templateStatusOf(campaignId: string, update: TemplateStatusUpdate): Promise<TemplateStatusOutcome>;
  /** Tops up the number's window from its campaigns' backlogs, atomically (feed.lua): the jobs to enqueue. */
  feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult>;
  /** The number's campaigns (those that may have rows to feed) that have a send window, with their lanes. */
  windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns>;
  /** Rows fed to the number whose jobs are not done yet. */
  windowSize(phoneNumberId: string): Promise<number>;
  /** A group job is done, each of its rows had its turn: it leaves the window (group-done.lua). Safe to repeat. */
  groupDone(phoneNumberId: string, group: SendGroup): Promise<void>;
  /** The portfolio's messaging limit as a worker or webhook learnt it (kept two days): what feeds and `campaign send`'s plan read. */
  recordMessagingLimit(portfolio: string, limit: MessagingLimit): Promise<void>;
  /** The in-doubt rule for the number's `confirming` rows whose window passed, at most `limit` (confirm-in-doubt.lua). */
  confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions>;
  /** `--retry-capped-after`: the number's rows whose 131049 is old enough go back to the backlog once (at most `limit`). */
  retryCapped(phoneNumberId: string, limit: number): Promise<{ requeued: number; left: number }>;
  /** Meta said the recipient stopped marketing messages (131050): remember it for every number of its portfolio. */
  recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void>;
  /**
   * Meta answered 131049 (the user's marketing cap) to a send of the campaign: when it sends a MARKETING template, no number of its
   * portfolio sends the user one until the wait is over (record-marketing-cap.lua).
   */
  recordMarketingCap(phoneNumberId: string, campaignId: string, phone: string): Promise<void>;
  /** `campaign optouts add`: the operator opts a recipient out on the number's portfolio (true), or they were already (false). */
  addOptOut(phoneNumberId: string, phone: string): Promise<boolean>;
  /** `campaign optouts remove`: true if the recipient was opted out and no longer is. */
  removeOptOut(phoneNumberId: string, phone: string): Promise<boolean>;
}

/**
 * Operator commands (src/campaigns/control/campaign-controls.ts): pause, resume, cancel,
 * retry and reschedule, each decided by the ledger in one atomic step.
 */
export interface ControlLedger extends Pick<ReportLedger, 'status' | 'getCampaign'>, Pick<SendLedger, 'isHeld'> {
  /** No row of the campaign is fed or claimed any more; rows already fed park at their claim. */
  pause(campaignId: string, reason: string): Promise<PauseResult>;
  /** Lifts a pause: the parked rows are in the backlog, and the feeder feeds them again. */
  resume(campaignId: string): Promise<ResumeResult>;
  /** Stops the campaign for good: its backlog is cancelled at once, rows already fed at their claim. */
  cancel(campaignId: string): Promise<CancelResult>;
  /** Puts the chosen finished rows among `fromRow..toRow` back in the backlog, under new job numbers. */
  markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage>;
  /** Moves the start (ms) of a campaign that has not started. */
  reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult>;
}

/**
 * Reading campaigns back (src/campaigns/report/report.ts, `campaign status | list | report`
 * in src/cli/commands): definitions, states and counts, rows.
 */
export interface ReportLedger {
  getCampaign(id: string): Promise<CampaignDefinition | undefined>;
  status(campaignId: string): Promise<CampaignStatus | undefined>;
  /** Rows in row order, in pages, for reports of any size. */
  rows(campaignId: string, pageSize?: number): AsyncIterable<RowRecord[]>;
  listCampaigns(): Promise<string[]>;
  /** Every phone number that has had a campaign, in ID order (a worker serving all numbers discovers them here). */
  phoneNumbers(): Promise<string[]>;
  /** Rows of each lane not fed yet. */
  laneBacklogs(campaignId: string): Promise<LaneBacklog[]>;
}

/** What Meta's webhooks change (src/campaigns/settle applies them, src/webhooks brings them): rows settled by status, opt-outs. */
export interface DeliveryLedger {
  /** Applies status webhooks to their rows, in any order and with any duplicates to one result (apply-statuses.lua). */
  applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]>;
  /**
   * Records users' messages: their 24-hour windows, replies on rows, opt-out keywords (apply-inbound.lua). Per message: whether it answered
   * a row.
   */
  applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]>;
  /** Marketing stop opts the user out on the number's portfolio, resume (or signup) lifts it; the newest event wins. */
  applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void>;
  /** A template's status, applied to each campaign that sends it in that language (template-status.lua): their outcomes. */
  applyTemplateStatus(update: TemplateStatusUpdate): Promise<TemplateStatusOutcome[]>;
  /** Meta's quality score or category of a template, kept for the template list and the campaigns page (the newest of each wins). */
  recordTemplateInfo(updates: readonly TemplateInfoUpdate[]): Promise<void>;
  /**
   * Whether each user's 24-hour customer-service window on the number is open now, in their
   * order, in one round trip: a text campaign's ingest asks it per chunk of rows
   * (WINDOW_CLOSED), never per row. `+` before the digits is ignored.
   */
  serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]>;
}

/**
 * The campaign ledger: per-row state and counters, every consumer's part. The campaign logic
 * depends on these interfaces only; src/redis/ledger/redis-ledger.ts implements it, its rules in the
 * Lua scripts of src/redis/lua.
 */
export interface CampaignLedger extends IngestLedger, SendLedger, ControlLedger, ReportLedger, DeliveryLedger {}
