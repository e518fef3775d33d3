import type { CampaignDefinition, CampaignStatus, RowRecord } from '../campaigns/campaign.js';
import type {
  AlreadySent,
  CampaignLedger,
  CancelResult,
  ClaimResult,
  FeedOptions,
  FeedResult,
  InboundUpdate,
  InDoubtDecisions,
  IngestedRow,
  IngestResult,
  LaneBacklog,
  OptOutSource,
  PauseResult,
  PreferenceUpdate,
  RescheduleResult,
  ResumeResult,
  RetryPage,
  RetrySelection,
  Settlement,
  SettleResult,
  StatusOutcome,
  StatusUpdate,
  WindowedCampaigns,
} from '../campaigns/ledger.js';
import type { PurgeLedger, PurgeResult } from '../campaigns/control/purge-ledger.js';
import type { CampaignCounters, CampaignCountersReader } from '../campaigns/report/campaign-counters.js';
import type { ErrorCodeCount, ErrorCodeLedger } from '../campaigns/report/error-codes.js';
import type { SendJob } from '../campaigns/send-job.js';
import type { MessagingLimit } from '../config/number-settings.js';
import type { RedisClient } from './key-scope.js';
import { LedgerClaims } from './ledger-claims.js';
import { LedgerContext, type LedgerOptions } from './ledger-context.js';
import { LedgerControls } from './ledger-controls.js';
import { LedgerCounters } from './ledger-counters.js';
import { LedgerDelivery } from './ledger-delivery.js';
import { LedgerErrorCodes } from './ledger-error-codes.js';
import { LedgerFeed } from './ledger-feed.js';
import { LedgerIngest } from './ledger-ingest.js';
import { LedgerPurge } from './ledger-purge.js';
import { LedgerReads } from './ledger-reads.js';

export type { AutoPauseSettings, LedgerOptions } from './ledger-context.js';
export { PRIORITY_SCORE } from './ledger-ingest.js';
export { campaignLedgerKeys, confirmKeys, feedKeys, laneBacklogKey, sentGuardKeys, wamidsKey } from './ledger-keys.js';

/**
 * The campaign ledger in Redis: a hash per campaign (definition, counters, state), a hash of
 * its rows, its backlog, and per phone number the duplicate guard, the feed window and the
 * in-doubt rows (src/redis/lua/README.md). Each role is a part of its own: ingest
 * (ledger-ingest.ts), feed (ledger-feed.ts), claim and settle (ledger-claims.ts), delivery and
 * webhooks (ledger-delivery.ts), controls (ledger-controls.ts, ledger-purge.ts), reads
 * (ledger-reads.ts, ledger-error-codes.ts, ledger-counters.ts), * sharing one LedgerContext (the connection, prefix, clock and settings).
 */
export class RedisLedger implements CampaignLedger, PurgeLedger, ErrorCodeLedger, CampaignCountersReader {
  readonly #context: LedgerContext;
  readonly #ingest: LedgerIngest;
  readonly #feed: LedgerFeed;
  readonly #claims: LedgerClaims;
  readonly #delivery: LedgerDelivery;
  readonly #controls: LedgerControls;
  readonly #reads: LedgerReads;
  readonly #purge: LedgerPurge;
  readonly #errorCodes: LedgerErrorCodes;
  readonly #counters: LedgerCounters;

  constructor(redis: RedisClient, prefix: string, options: LedgerOptions = {}) {
    this.#context = new LedgerContext(redis, prefix, options);
    this.#ingest = new LedgerIngest(this.#context);
    this.#feed = new LedgerFeed(this.#context);
    this.#claims = new LedgerClaims(this.#context);
    this.#delivery = new LedgerDelivery(this.#context);
    this.#controls = new LedgerControls(this.#context);
    this.#reads = new LedgerReads(this.#context);
    this.#purge = new LedgerPurge(this.#context);
    this.#errorCodes = new LedgerErrorCodes(this.#context);
    this.#counters = new LedgerCounters(this.#context);
  }

  /** The ledger's clock now (ms): Redis's, or the one a test set. */
  now(): Promise<number> {
    return this.#context.clock.now();
  }

  // Ingest.
  createCampaign(definition: CampaignDefinition): Promise<void> {
    return this.#ingest.createCampaign(definition);
  }
  getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    return this.#ingest.getCampaign(id);
  }
  recordIngested(campaignId: string, phoneNumberId: string, rows: readonly IngestedRow[]): Promise<IngestResult> {
    return this.#ingest.recordIngested(campaignId, phoneNumberId, rows);
  }
  priorSends(campaignId: string, phoneNumberId: string, rows: readonly { row: number; fingerprint: string }[]): Promise<AlreadySent[]> {
    return this.#ingest.priorSends(campaignId, phoneNumberId, rows);
  }
  allowRepeat(campaignId: string): Promise<void> {
    return this.#ingest.allowRepeat(campaignId);
  }
  markIngestInterrupted(campaignId: string, reason: string): Promise<boolean> {
    return this.#ingest.markIngestInterrupted(campaignId, reason);
  }
  liftIngestPause(campaignId: string): Promise<boolean> {
    return this.#ingest.liftIngestPause(campaignId);
  }
  finishIngest(campaignId: string): Promise<boolean> {
    return this.#ingest.finishIngest(campaignId);
  }
  recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void> {
    return this.#ingest.recordLanes(campaignId, lanes);
  }
  lanes(campaignId: string): Promise<string[][]> {
    return this.#ingest.lanes(campaignId);
  }

  // Feed, claim and settle.
  feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    return this.#feed.feed(phoneNumberId, options);
  }
  windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns> {
    return this.#feed.windowedCampaigns(phoneNumberId);
  }
  windowSize(phoneNumberId: string): Promise<number> {
    return this.#feed.windowSize(phoneNumberId);
  }
  recordMessagingLimit(phoneNumberId: string, limit: MessagingLimit): Promise<void> {
    return this.#feed.recordMessagingLimit(phoneNumberId, limit);
  }
  claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    return this.#claims.claim(job, phoneNumberId);
  }
  settle(job: SendJob, settlement: Settlement, phoneNumberId?: string): Promise<SettleResult> {
    return this.#claims.settle(job, settlement, phoneNumberId);
  }
  halt(job: SendJob, errorCode: string, errorDetail: string, phoneNumberId?: string): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    return this.#claims.halt(job, errorCode, errorDetail, phoneNumberId);
  }
  isHeld(campaignId: string): Promise<boolean> {
    return this.#claims.isHeld(campaignId);
  }
  confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
    return this.#claims.confirmInDoubt(phoneNumberId, limit);
  }

  // Delivery and webhooks, opt-outs.
  applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    return this.#delivery.applyStatuses(updates);
  }
  applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    return this.#delivery.applyInbound(updates);
  }
  applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    return this.#delivery.applyPreferences(updates);
  }
  serviceWindowOpen(phoneNumberId: string, waId: string): Promise<boolean> {
    return this.#delivery.serviceWindowOpen(phoneNumberId, waId);
  }
  serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]> {
    return this.#delivery.serviceWindowsOpen(phoneNumberId, waIds);
  }
  recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    return this.#delivery.recordOptOut(phoneNumberId, phone, source);
  }
  addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return this.#delivery.addOptOut(phoneNumberId, phone);
  }
  removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return this.#delivery.removeOptOut(phoneNumberId, phone);
  }
  optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    return this.#delivery.optOuts(phoneNumberId);
  }

  // Controls.
  pause(campaignId: string, reason: string): Promise<PauseResult> {
    return this.#controls.pause(campaignId, reason);
  }
  resume(campaignId: string): Promise<ResumeResult> {
    return this.#controls.resume(campaignId);
  }
  cancel(campaignId: string): Promise<CancelResult> {
    return this.#controls.cancel(campaignId);
  }
  reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return this.#controls.reschedule(campaignId, startsAt);
  }
  markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    return this.#controls.markForRetry(campaignId, fromRow, toRow, selection);
  }
  purge(campaignId: string): Promise<PurgeResult> {
    return this.#purge.purge(campaignId);
  }
  lockRetention(): Promise<(() => Promise<void>) | undefined> {
    return this.#purge.lockRetention();
  }

  // Reads.
  status(campaignId: string): Promise<CampaignStatus | undefined> {
    return this.#reads.status(campaignId);
  }
  rows(campaignId: string, pageSize?: number): AsyncIterable<RowRecord[]> {
    return this.#reads.rows(campaignId, pageSize);
  }
  listCampaigns(): Promise<string[]> {
    return this.#reads.listCampaigns();
  }
  phoneNumbers(): Promise<string[]> {
    return this.#reads.phoneNumbers();
  }
  laneBacklogs(campaignId: string): Promise<LaneBacklog[]> {
    return this.#reads.laneBacklogs(campaignId);
  }
  errorCodes(campaignId: string, cap?: number): Promise<ErrorCodeCount> {
    return this.#errorCodes.errorCodes(campaignId, cap);
  }
  campaignCounters(): Promise<CampaignCounters[]> {
    return this.#counters.campaignCounters();
  }
}
