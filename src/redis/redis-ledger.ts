import {
  ROW_STATUSES,
  campaignDefinitionSchema,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignStatus,
  type RowRecord,
  type RowStatus,
} from '../campaigns/campaign.js';
import type {
  CampaignLedger,
  CancelResult,
  FeedEvent,
  RescheduleResult,
  ClaimedRow,
  ClaimResult,
  FeedOptions,
  FeedResult,
  IngestedRow,
  LaneBacklog,
  InboundUpdate,
  InDoubtDecisions,
  PreferenceUpdate,
  StatusOutcome,
  StatusUpdate,
  WindowedCampaigns,
  IngestResult,
  AlreadySent,
  OptOutSource,
  PauseResult,
  ResumeResult,
  RetrySelection,
  SettleResult,
  Settlement,
} from '../campaigns/ledger.js';
import { RETRY_HOLD_131049_MS, SERVICE_WINDOW_MS, type RetryPage } from '../campaigns/ledger.js';
import { toRecord, type StoredRow } from '../campaigns/stored-row.js';
import { parseSendJobId, type SendJob } from '../campaigns/send-job.js';
import {
  CANCEL,
  CLAIM,
  CLAIM_ANSWER_WIDTH,
  APPLY_INBOUND,
  APPLY_PREFERENCES,
  APPLY_STATUSES,
  FEED,
  FINISH_INGEST,
  HALT,
  INGEST_INTERRUPTED,
  LIFT_INGEST_PAUSE,
  MARK_FOR_RETRY,
  PAUSE,
  RECORD_INGESTED,
  PRIOR_SENDS,
  RESCHEDULE,
  RESUME,
  SETTLE,
  CONFIRM_IN_DOUBT,
  SETTLE_ROW_ARGS,
  SETTLE_SHARED_ARGS,
} from './ledger-scripts.js';
import { TickBatch } from './tick-batch.js';
import { LedgerClock, type LedgerClockSetting } from './ledger-clock.js';
import { numberScope, type RedisClient } from './key-scope.js';
import {
  campaignIndexKey,
  campaignLedgerKeys,
  campaignNumbersKey,
  confirmKeys,
  feedKeys,
  laneBacklogKey,
  optOutsKey,
  phoneNumbersKey,
  reachKey,
  sentGuardKeys,
  serviceWindowKey,
  wamidsKey,
} from './ledger-keys.js';
import { z } from 'zod';
import { safeJson } from '../cloud-api/graph-answers.js';

const optOutSourceSchema = z.object({ campaignId: z.string(), row: z.number(), at: z.number(), via: z.enum(['keyword', 'user_preferences', 'operator']).optional() });

type Arg = string | number;

/** `{row, detail, row, detail, …}` as the ingest scripts answer → the rows skipped as ALREADY_SENT. */
function pairsOf(flat: readonly string[]): AlreadySent[] {
  const rows: AlreadySent[] = [];
  for (let i = 0; i < flat.length; i += 2) rows.push({ row: Number(flat[i]), detail: flat[i + 1] ?? '' });
  return rows;
}

interface LedgerCommands {
  cwRecordIngested(campaign: string, rows: string, sent: string, sentAt: string, pending: string, active: string, ...args: Arg[]): Promise<[string[], string[], number]>;
  cwPriorSends(campaign: string, sent: string, ...args: Arg[]): Promise<string[]>;
  cwIngestInterrupted(campaign: string, reason: string, clock: string): Promise<number>;
  cwLiftIngestPause(campaign: string, recent: string): Promise<number>;
  cwFinishIngest(campaign: string, clock: string): Promise<number>;
  cwClaim(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<string[]>;
  cwSettle(campaign: string, rows: string, wamids: string, recent: string, sent: string, sentAt: string, window: string, confirm: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwConfirmInDoubt(confirm: string, seen: string, active: string, sent: string, sentAt: string, prefix: string, clock: string, limit: number): Promise<(string | number)[]>;
  cwHalt(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<[string, number, number?]>;
  cwPause(campaign: string, reason: string, clock: string): Promise<string>;
  cwResume(campaign: string, recent: string): Promise<string>;
  cwCancel(campaign: string, pending: string, active: string, campaignId: string, clock: string, reason: string): Promise<[string, number]>;
  cwReschedule(campaign: string, startsAt: number): Promise<string>;
  cwApplyStatuses(wamids: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwApplyInbound(wamids: string, ...args: Arg[]): Promise<number[]>;
  cwApplyPreferences(optouts: string, ...args: Arg[]): Promise<number>;
  cwMarkForRetry(campaign: string, rows: string, pending: string, active: string, ...args: Arg[]): Promise<[number, number, number?, number?]>;
  cwFeed(active: string, window: string, reach: string, ...args: Arg[]): Promise<[string[], string[], string[], (string | number)[], number]>;
}

/** The error-spike brake (see Config.autoPause); window 0 = off. */
export interface AutoPauseSettings {
  failureShare: number;
  window: number;
}

const BRAKE_OFF: AutoPauseSettings = { failureShare: 1, window: 0 };

/** A claim's answer as the script gives it: outcome, status or attempts, then phone, values JSON, header link. */
type RawClaim = string[];
/** A settle's answer as the script gives it: status afterwards, completed (1/0), paused (1/0). */
type RawSettle = [string, number, number];
interface PendingSettle {
  job: SendJob;
  settlement: Settlement;
  /** Whose duplicate guard forgets a refused send ('' = the campaign's, read from its definition). */
  phoneNumberId: string;
}
interface PendingClaim {
  job: SendJob;
  phoneNumberId: string;
}


/** Ledger settings from config. */
export interface LedgerOptions {
  autoPause?: AutoPauseSettings;
  /** The duplicate-send guard's window (DUPLICATE_WINDOW_HOURS) in ms; 0 or absent = off. */
  duplicateWindowMs?: number;
  /** How long an in-doubt row waits for a status webhook (Config.confirmWindowMs); 0 = off: `unknown` at once. */
  confirmWindowMs?: number;
  /**
   * REDIS_WAIT_REPLICAS: claims and ingested rows are on this many replicas before a send may
   * leave (WAIT), so a master lost in a failover cannot take a claim with it and let the row be
   * sent twice. 0 = off (a single Redis, or a cluster without replicas).
   */
  waitReplicas?: number;
  /** A warning when replicas did not acknowledge in time (the send goes ahead). */
  onReplicasBehind?: (acknowledged: number, wanted: number) => void;
  /** Tests only (never from config): a clock they move instead of waiting; absent = Redis's clock. */
  clock?: LedgerClockSetting;
}

/** How long a claim waits for its replicas (REDIS_WAIT_REPLICAS) before the send goes ahead anyway. */
const REPLICA_WAIT_MS = 1000;
/** How long a node's count of connected replicas is trusted (a failover changes it). */
const REPLICA_COUNT_MS = 3000;

export { campaignLedgerKeys, confirmKeys, feedKeys, laneBacklogKey, sentGuardKeys, wamidsKey } from './ledger-keys.js';

/** How the feed script ranks priorities: lower first. */
export const PRIORITY_SCORE = { high: 0, normal: 1, low: 2 } as const;

/** The campaign ledger in Redis: a hash per campaign (definition + counters), a hash of rows. */
export class RedisLedger implements CampaignLedger {
  readonly #redis: RedisClient & LedgerCommands;
  readonly #prefix: string;
  readonly #brake: AutoPauseSettings;
  readonly #duplicateWindowMs: number;
  readonly #confirmWindowMs: number;
  readonly #waitReplicas: number;
  readonly #onReplicasBehind: ((acknowledged: number, wanted: number) => void) | undefined;
  readonly #replicaCounts = new Map<string, { count: number; at: number }>();
  readonly #clock: LedgerClock;
  /** Claims and answers of one event-loop turn go to Redis as one script call per campaign. */
  readonly #claims = new TickBatch<PendingClaim, RawClaim>((id, items) => this.#claimMany(id, items));
  readonly #settles = new TickBatch<PendingSettle, RawSettle>((id, items) => this.#settleMany(id, items));

  /** Campaign ID → phone number ID: fixed at creation, so read once per process. */
  readonly #numbers = new Map<string, string>();

  constructor(redis: RedisClient, prefix: string, options: LedgerOptions = {}) {
    defineScripts(redis);
    this.#redis = redis as RedisClient & LedgerCommands;
    this.#prefix = prefix;
    this.#brake = options.autoPause ?? BRAKE_OFF;
    this.#duplicateWindowMs = options.duplicateWindowMs ?? 0;
    this.#confirmWindowMs = options.confirmWindowMs ?? 0;
    this.#waitReplicas = options.waitReplicas ?? 0;
    this.#onReplicasBehind = options.onReplicasBehind;
    this.#clock = new LedgerClock(redis, options.clock);
  }

  /** The ledger's clock now (ms): Redis's, or the one a test set. */
  now(): Promise<number> {
    return this.#clock.now();
  }

  /**
   * With REDIS_WAIT_REPLICAS: waits until the writes made so far on the connection to `key`'s
   * node are on that many replicas. WAIT names no key, so on a cluster it rides in a pipeline
   * behind a read of `key`, which takes it to that node (the one that ran the script). It
   * waits for no more replicas than the node has connected (read every few seconds): a
   * replica promoted in a failover has none until one is added, and waiting for one that
   * does not exist would stall every claim for the whole timeout.
   */
  async #replicated(key: string): Promise<void> {
    if (this.#waitReplicas === 0) return;
    const replicas = await this.#connectedReplicas(key);
    const wanted = Math.min(this.#waitReplicas, replicas);
    if (wanted < this.#waitReplicas) this.#onReplicasBehind?.(replicas, this.#waitReplicas);
    if (wanted === 0) return;
    const replies = await this.#redis.pipeline().exists(key).wait(wanted, REPLICA_WAIT_MS).exec();
    const acknowledged = Number(replies?.[1]?.[1] ?? 0);
    if (acknowledged < wanted) this.#onReplicasBehind?.(acknowledged, this.#waitReplicas);
  }

  /** Replicas connected to the node holding `key` (its slot's tag keyed, kept REPLICA_COUNT_MS). */
  async #connectedReplicas(key: string): Promise<number> {
    const tag = /\{([^}]*)\}/.exec(key)?.[1] ?? '';
    const known = this.#replicaCounts.get(tag);
    if (known !== undefined && known.at > Date.now() - REPLICA_COUNT_MS) return known.count;
    const replies = await this.#redis.pipeline().exists(key).info('replication').exec();
    const info = replies?.[1]?.[1];
    const count = Number(/connected_slaves:(\d+)/.exec(typeof info === 'string' ? info : '')?.[1] ?? 0);
    this.#replicaCounts.set(tag, { count, at: Date.now() });
    return count;
  }

  /**
   * Where a campaign's keys live: under its phone number's scope. The number is given by the
   * caller where it knows it (a worker), else read from the campaign index once; a campaign
   * that does not exist gets '' (its keys then name nothing).
   */
  async #numberOf(campaignId: string, given?: string): Promise<string> {
    if (given !== undefined && given !== '') return given;
    const known = this.#numbers.get(campaignId);
    if (known !== undefined) return known;
    const read = await this.#redis.hget(campaignNumbersKey(this.#prefix), campaignId);
    if (read === null) return '';
    this.#numbers.set(campaignId, read);
    return read;
  }

  async #keys(campaignId: string, phoneNumberId?: string): Promise<ReturnType<typeof campaignLedgerKeys> & { phoneNumberId: string }> {
    const number = await this.#numberOf(campaignId, phoneNumberId);
    return { ...campaignLedgerKeys(this.#prefix, number, campaignId), phoneNumberId: number };
  }

  async createCampaign(definition: CampaignDefinition): Promise<void> {
    const number = definition.phoneNumberId;
    // The index first: every later read finds the campaign's keys through it. HSETNX: a
    // campaign created again keeps its first number (its keys are there).
    await this.#redis.hsetnx(campaignNumbersKey(this.#prefix), definition.id, number);
    const keys = await this.#keys(definition.id);
    const key = keys.campaign;
    // The feed script reads the schedule from the hash, not from the definition's JSON.
    const schedule: string[] = [];
    for (const field of ['startsAt', 'startDeadline', 'expiresAt'] as const) {
      const value = definition[field];
      if (value !== undefined) schedule.push(field, String(value));
    }
    // `window`: the scripts keep this campaign's backlog in lanes (pending:<lane>).
    if (definition.window !== undefined) schedule.push('window', '1');
    if (schedule.length > 0) await this.#redis.hset(key, ...schedule);
    // One transaction on the campaign's own keys (one slot); the shared indexes after it.
    await this.#redis
      .multi()
      .hsetnx(key, 'definition', JSON.stringify(definition))
      .hsetnx(key, 'createdAt', String(definition.createdAt))
      .hsetnx(key, 'priority', String(PRIORITY_SCORE[definition.priority ?? 'normal']))
      .exec();
    await this.#redis.zadd(campaignIndexKey(this.#prefix), 'NX', definition.createdAt, definition.id);
    await this.#redis.sadd(phoneNumbersKey(this.#prefix), keys.phoneNumberId);
  }

  async getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    const json = await this.#redis.hget((await this.#keys(id)).campaign, 'definition');
    return json === null ? undefined : campaignDefinitionSchema.parse(JSON.parse(json));
  }

  async recordIngested(campaignId: string, phoneNumberId: string, rows: readonly IngestedRow[]): Promise<IngestResult> {
    if (rows.length === 0) return { queued: [], alreadySent: [], reopened: 0 };
    const compact = rows.map((r) =>
      r.status === 'queued'
        ? [String(r.row), r.status, r.phone, r.message.values, r.message.headerLink ?? '', r.message.fingerprint, ...(r.lane === undefined ? [] : [r.lane])]
        : [String(r.row), r.status, r.phone, r.errorCode, r.errorDetail],
    );
    const { sent, sentAt } = sentGuardKeys(this.#prefix, phoneNumberId);
    const keys = await this.#keys(campaignId, phoneNumberId);
    const [queued, already, reopened] = await this.#redis.cwRecordIngested(
      keys.campaign,
      keys.rows,
      sent,
      sentAt,
      keys.pending,
      feedKeys(this.#prefix, phoneNumberId).active,
      JSON.stringify(compact),
      campaignId,
      this.#clock.arg(),
      this.#duplicateWindowMs,
    );
    await this.#replicated(keys.campaign);
    return { queued: queued.map(Number), alreadySent: pairsOf(already), reopened: Number(reopened) };
  }

  async priorSends(campaignId: string, phoneNumberId: string, rows: readonly { row: number; fingerprint: string }[]): Promise<AlreadySent[]> {
    if (rows.length === 0 || this.#duplicateWindowMs <= 0) return [];
    const keys = await this.#keys(campaignId, phoneNumberId);
    const args = rows.flatMap((r) => [String(r.row), r.fingerprint]);
    const already = await this.#redis.cwPriorSends(keys.campaign, sentGuardKeys(this.#prefix, phoneNumberId).sent, campaignId, this.#clock.arg(), this.#duplicateWindowMs, ...args);
    return pairsOf(already);
  }

  async allowRepeat(campaignId: string): Promise<void> {
    await this.#redis.hset((await this.#keys(campaignId)).campaign, 'allowRepeat', '1');
  }

  async markIngestInterrupted(campaignId: string, reason: string): Promise<boolean> {
    return (await this.#redis.cwIngestInterrupted((await this.#keys(campaignId)).campaign, reason, this.#clock.arg())) === 1;
  }

  async liftIngestPause(campaignId: string): Promise<boolean> {
    const keys = await this.#keys(campaignId);
    return (await this.#redis.cwLiftIngestPause(keys.campaign, keys.recent)) === 1;
  }

  async finishIngest(campaignId: string): Promise<boolean> {
    return (await this.#redis.cwFinishIngest((await this.#keys(campaignId)).campaign, this.#clock.arg())) === 1;
  }

  async claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    const id = job.campaignId;
    phoneNumberId = await this.#numberOf(id, phoneNumberId);
    {
      const [outcome, value, phone, values, headerLink] = await this.#claims.add(id, { job, phoneNumberId });
      switch (outcome) {
        case 'claimed':
          return { outcome: 'claimed', attempt: Number(value), row: claimedRow(phone ?? '', values ?? '', headerLink ?? '') };
        case 'settled':
          return phone === '1' ? { outcome: 'settled', status: value as RowStatus, completedCampaign: true } : { outcome: 'settled', status: value as RowStatus };
        case 'in-doubt':
          return { outcome: 'in-doubt', attempts: Number(value) };
        case 'parked':
          return { outcome: 'parked' };
        case 'stale':
          return { outcome: 'stale' };
        default:
          throw new Error(`ledger has no row ${job.row} in campaign ${id}`);
      }
    }
  }

  async #claimMany(id: string, items: readonly PendingClaim[]): Promise<RawClaim[]> {
    // One campaign per call, so one phone number.
    const phoneNumberId = items[0]?.phoneNumberId ?? '';
    const { sent, sentAt } = sentGuardKeys(this.#prefix, phoneNumberId);
    const { window, active } = feedKeys(this.#prefix, phoneNumberId);
    const keys = campaignLedgerKeys(this.#prefix, phoneNumberId, id);
    const flat = await this.#redis.cwClaim(
      keys.campaign,
      keys.rows,
      sent,
      sentAt,
      window,
      active,
      keys.pending,
      this.#clock.arg(),
      this.#duplicateWindowMs,
      id,
      ...items.flatMap(({ job }) => [job.row, job.requeue ?? 0]),
    );
    // A claimed row's send must not leave before its claim is on the replicas (a failover
    // that lost it would let the row be claimed and sent again).
    await this.#replicated(keys.campaign);
    const width = CLAIM_ANSWER_WIDTH;
    return items.map((_, i) => {
      const answer = flat.slice(width * i, width * (i + 1));
      if (answer.length === 0) answer.push('missing');
      return answer;
    });
  }

  async settle(job: SendJob, settlement: Settlement, phoneNumberId = ''): Promise<SettleResult> {
    const [status, completed, paused] = await this.#settles.add(job.campaignId, { job, settlement, phoneNumberId });
    if (status === 'missing') throw new Error(`ledger has no row ${job.row} in campaign ${job.campaignId}`);
    return { status: status as RowStatus, completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  async #settleMany(id: string, items: readonly PendingSettle[]): Promise<RawSettle[]> {
    const args: Arg[] = [id, this.#clock.arg(), this.#brake.window, this.#brake.failureShare, this.#confirmWindowMs];
    for (const { job, settlement } of items) {
      const sent = settlement.status === 'sent';
      args.push(
        job.row,
        settlement.status,
        sent ? settlement.wamid : '',
        sent ? '' : settlement.errorCode,
        sent ? '' : settlement.errorDetail,
        job.requeue ?? 0,
      );
    }
    if (args.length !== SETTLE_SHARED_ARGS + SETTLE_ROW_ARGS * items.length) throw new Error('settle arguments out of step with the script');
    const keys = await this.#keys(id, items[0]?.phoneNumberId);
    const { phoneNumberId } = keys;
    const { sent, sentAt } = sentGuardKeys(this.#prefix, phoneNumberId);
    const flat = await this.#redis.cwSettle(
      keys.campaign,
      keys.rows,
      wamidsKey(this.#prefix, phoneNumberId),
      keys.recent,
      sent,
      sentAt,
      feedKeys(this.#prefix, phoneNumberId).window,
      confirmKeys(this.#prefix, phoneNumberId).confirm,
      ...args,
    );
    return items.map((_, i) => [String(flat[3 * i] ?? 'missing'), Number(flat[3 * i + 1] ?? 0), Number(flat[3 * i + 2] ?? 0)]);
  }

  async confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
    const { confirm, statusSeen } = confirmKeys(this.#prefix, phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(this.#prefix, phoneNumberId);
    const [resent, unknown, ended, ...completed] = await this.#redis.cwConfirmInDoubt(
      confirm,
      statusSeen,
      feedKeys(this.#prefix, phoneNumberId).active,
      sent,
      sentAt,
      numberScope(this.#prefix, phoneNumberId),
      this.#clock.arg(),
      limit,
    );
    return { resent: Number(resent), unknown: Number(unknown), ended: Number(ended), completedCampaigns: completed.map(String) };
  }

  async halt(job: SendJob, errorCode: string, errorDetail: string, phoneNumberId?: string): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    const id = job.campaignId;
    const keys = await this.#keys(id, phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(this.#prefix, keys.phoneNumberId);
    const { window, active } = feedKeys(this.#prefix, keys.phoneNumberId);
    const [, completed, paused] = await this.#redis.cwHalt(
      keys.campaign,
      keys.rows,
      sent,
      sentAt,
      window,
      active,
      keys.pending,
      job.row,
      job.requeue ?? 0,
      errorCode,
      errorDetail,
      this.#clock.arg(),
      id,
    );
    return { completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const [paused, cancelled] = await this.#redis.hmget((await this.#keys(campaignId)).campaign, 'paused', 'cancelled');
    return paused === '1' || cancelled === '1';
  }

  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const outcome = await this.#redis.cwPause((await this.#keys(campaignId)).campaign, reason, this.#clock.arg());
    return { outcome } as PauseResult;
  }

  async resume(campaignId: string): Promise<ResumeResult> {
    const keys = await this.#keys(campaignId);
    const outcome = await this.#redis.cwResume(keys.campaign, keys.recent);
    return { outcome } as ResumeResult;
  }

  async cancel(campaignId: string): Promise<CancelResult> {
    const keys = await this.#keys(campaignId);
    const [outcome, cancelled] = await this.#redis.cwCancel(
      keys.campaign,
      keys.pending,
      feedKeys(this.#prefix, keys.phoneNumberId).active,
      campaignId,
      this.#clock.arg(),
      '',
    );
    return outcome === 'cancelled' ? { outcome, cancelled: Number(cancelled) } : ({ outcome } as CancelResult);
  }

  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return { outcome: (await this.#redis.cwReschedule((await this.#keys(campaignId)).campaign, startsAt)) as RescheduleResult['outcome'] };
  }

  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    // An empty range: nothing to look at (the script's HMGET would get no fields).
    if (fromRow > toRow) return { requeued: 0, noPayload: 0, held: 0, heldUntil: 0 };
    const keys = await this.#keys(campaignId);
    const [requeued, noPayload, held, heldUntil] = await this.#redis.cwMarkForRetry(
      keys.campaign,
      keys.rows,
      keys.pending,
      feedKeys(this.#prefix, keys.phoneNumberId).active,
      fromRow,
      toRow,
      selection.codes.join(','),
      selection.failed ? '1' : '0',
      selection.unknown ? '1' : '0',
      campaignId,
      this.#clock.arg(),
      RETRY_HOLD_131049_MS,
    );
    return { requeued, noPayload, held: Number(held ?? 0), heldUntil: Number(heldUntil ?? 0) };
  }

  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const { active, window } = feedKeys(this.#prefix, phoneNumberId);
    const [flat, again, happened, held, fedAt] = await this.#redis.cwFeed(
      active,
      window,
      reachKey(this.#prefix, phoneNumberId),
      numberScope(this.#prefix, phoneNumberId),
      this.#clock.arg(),
      options.windowSize,
      options.minBatch,
      options.refreshAfterMs,
      options.refreshMost,
      JSON.stringify(Object.fromEntries(options.openLanes ?? [])),
      options.messagingLimit ?? 0,
      phoneNumberId,
    );
    const jobs: SendJob[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      const job: SendJob = { campaignId: flat[i] ?? '', row: Number(flat[i + 1]) };
      const k = Number(flat[i + 2] ?? 0);
      if (k > 0) job.requeue = k;
      jobs.push(job);
    }
    const refresh = again.map(parseSendJobId).filter((job): job is SendJob => job !== undefined);
    const events: FeedEvent[] = [];
    for (let i = 0; i + 2 < happened.length; i += 3) {
      const [kind, campaignId = '', detail = ''] = happened.slice(i, i + 3);
      if (kind === 'started') events.push({ kind, campaignId, startsAt: detail === '' ? undefined : Number(detail), at: Number(fedAt) });
      else if (kind === 'expired' || kind === 'deadline') events.push({ kind, campaignId, rows: Number(detail) });
      else if (kind === 'completed') events.push({ kind, campaignId });
    }
    const [limit, reached, freesAt] = held.map(Number);
    if (limit === undefined || reached === undefined || freesAt === undefined) return { jobs, refresh, events };
    return { jobs, refresh, events, limitHeld: { limit, reached, freesAt } };
  }

  async recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void> {
    if (lanes.length === 0) return;
    await this.#redis.hset((await this.#keys(campaignId)).lanes, ...lanes.flatMap((lane) => [String(lane.index), lane.zones.join('&')]));
  }

  async lanes(campaignId: string): Promise<string[][]> {
    return lanesOf(await this.#redis.hgetall((await this.#keys(campaignId)).lanes));
  }

  async laneBacklogs(campaignId: string): Promise<LaneBacklog[]> {
    const lanes = await this.lanes(campaignId);
    if (lanes.length === 0) return [];
    const { pending } = await this.#keys(campaignId);
    // One campaign's keys: one slot, so one pipeline even on a cluster.
    const pipeline = this.#redis.pipeline();
    lanes.forEach((_, lane) => pipeline.llen(laneBacklogKey(pending, lane)));
    const lengths = (await pipeline.exec()) ?? [];
    return lanes.map((zones, lane) => ({ lane, zones, pending: Number(lengths[lane]?.[1] ?? 0) }));
  }

  async windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns> {
    const now = await this.#clock.now();
    const ids = await this.#redis.zrange(feedKeys(this.#prefix, phoneNumberId).active, 0, -1);
    if (ids.length === 0) return { now, campaigns: [] };
    const flags = this.#redis.pipeline();
    // The number's campaigns share its slot: one pipeline even on a cluster.
    const keysOf = (id: string) => campaignLedgerKeys(this.#prefix, phoneNumberId, id);
    for (const id of ids) flags.hget(keysOf(id).campaign, 'window');
    const answers = (await flags.exec()) ?? [];
    const withWindow = ids.filter((_, i) => answers[i]?.[1] === '1');
    if (withWindow.length === 0) return { now, campaigns: [] };
    const reads = this.#redis.pipeline();
    for (const id of withWindow) reads.hget(keysOf(id).campaign, 'definition').hgetall(keysOf(id).lanes);
    const read = (await reads.exec()) ?? [];
    const campaigns: WindowedCampaigns['campaigns'] = [];
    withWindow.forEach((campaignId, i) => {
      const json = read[2 * i]?.[1];
      const window = typeof json === 'string' ? campaignDefinitionSchema.parse(JSON.parse(json)).window : undefined;
      if (window !== undefined) campaigns.push({ campaignId, window, lanes: lanesOf((read[2 * i + 1]?.[1] ?? {}) as Record<string, string>) });
    });
    return { now, campaigns };
  }

  // Webhooks name the phone number they are for; each number's events go in one script call
  // in its own slot (a webhook batch may mix numbers), answers back in the caller's order.

  async applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    return perNumber(updates, async (number, group) => {
      const args: Arg[] = [numberScope(this.#prefix, number), this.#clock.arg()];
      for (const u of group) args.push(u.wamid, u.kind, u.at, u.callbackData ?? '', u.code ?? '', u.detail ?? '', u.phoneNumberId);
      const flat = await this.#redis.cwApplyStatuses(wamidsKey(this.#prefix, number), ...args);
      const outcomes: StatusOutcome[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        outcomes.push({ outcome: String(flat[i]) as StatusOutcome['outcome'], completedCampaign: Number(flat[i + 1]) === 1 });
      }
      return outcomes;
    });
  }

  async applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    return perNumber(updates, async (number, group) => {
      const args: Arg[] = [numberScope(this.#prefix, number), this.#clock.arg(), SERVICE_WINDOW_MS];
      for (const u of group) args.push(u.phoneNumberId, u.waId, u.at, u.replyTo ?? '', u.reply ?? '', u.optOut ? '1' : '0');
      const answered = await this.#redis.cwApplyInbound(wamidsKey(this.#prefix, number), ...args);
      return answered.map((n) => ({ answeredRow: Number(n) === 1 }));
    });
  }

  async applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    await perNumber(updates, async (number, group) => {
      const args: Arg[] = [numberScope(this.#prefix, number)];
      for (const u of group) args.push(u.phoneNumberId, u.waId, u.value, u.at);
      await this.#redis.cwApplyPreferences(optOutsKey(this.#prefix, number), ...args);
      return group.map(() => undefined);
    });
  }

  async serviceWindowOpen(phoneNumberId: string, waId: string): Promise<boolean> {
    return (await this.serviceWindowsOpen(phoneNumberId, [waId]))[0] ?? false;
  }

  async serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]> {
    if (waIds.length === 0) return [];
    // One MGET for the lot: a window is open while the closing time its key holds is ahead
    // on the ledger's clock (apply-inbound.lua; the key also expires then).
    const [closes, now] = await Promise.all([this.#redis.mget(...waIds.map((waId) => serviceWindowKey(this.#prefix, phoneNumberId, waId))), this.#clock.now()]);
    return closes.map((value) => value !== null && Number(value) > now);
  }

  async windowSize(phoneNumberId: string): Promise<number> {
    return this.#redis.zcard(feedKeys(this.#prefix, phoneNumberId).window);
  }

  async addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: await this.#clock.now(), via: 'operator' };
    return (await this.#redis.hsetnx(optOutsKey(this.#prefix, phoneNumberId), phone, JSON.stringify(source))) === 1;
  }

  async removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return (await this.#redis.hdel(optOutsKey(this.#prefix, phoneNumberId), phone)) === 1;
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    await this.#redis.hset(optOutsKey(this.#prefix, phoneNumberId), phone, JSON.stringify({ ...source, at: await this.#clock.now() }));
  }

  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    const found = new Map<string, OptOutSource>();
    let cursor = '0';
    do {
      const [next, flat] = await this.#redis.hscan(optOutsKey(this.#prefix, phoneNumberId), cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const parsed = optOutSourceSchema.safeParse(safeJson(flat[i + 1] ?? ''));
        // An entry this version cannot read still means the recipient opted out.
        found.set(flat[i] ?? '', parsed.success ? parsed.data : { campaignId: '?', row: 0, at: 0 });
      }
    } while (cursor !== '0');
    return found;
  }

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const fields = await this.#redis.hgetall((await this.#keys(campaignId)).campaign);
    if (fields.definition === undefined) return undefined;
    const counts = { total: Number(fields.total ?? 0), delivered: Number(fields['n:delivered'] ?? 0), read: Number(fields['n:read'] ?? 0) } as CampaignCounts;
    for (const status of ROW_STATUSES) counts[status] = Number(fields[`n:${status}`] ?? 0);
    const finishedAt = fields.finishedAt === undefined ? undefined : Number(fields.finishedAt);
    const paused = fields.paused === '1';
    const ms = (field: string | undefined) => (field === undefined ? undefined : Number(field));
    const startsAt = ms(fields.startsAt);
    const scheduled = startsAt !== undefined && fields.startedAt === undefined && finishedAt === undefined && startsAt > (await this.#clock.now());
    return {
      id: campaignId,
      priority: fields.priority === '0' ? 'high' : fields.priority === '2' ? 'low' : 'normal',
      state:
        fields.cancelled === '1'
          ? 'cancelled'
          : paused
            ? 'paused'
            : scheduled
              ? 'scheduled'
            : fields.ingestDone !== '1'
              ? 'ingesting'
              : finishedAt === undefined
                ? 'running'
                : 'completed',
      counts,
      createdAt: Number(fields.createdAt ?? 0),
      finishedAt,
      pausedReason: paused ? fields.pausedReason : undefined,
      pausedAt: paused && fields.pausedAt !== undefined ? Number(fields.pausedAt) : undefined,
      ingestInterrupted: fields.ingestInterrupted !== undefined,
      purgedAt: fields.purgedAt === undefined ? undefined : Number(fields.purgedAt),
      startsAt,
      startDeadline: ms(fields.startDeadline),
      expiresAt: ms(fields.expiresAt),
      startedAt: ms(fields.startedAt),
      cancelReason: fields.cancelReason,
    };
  }

  async *rows(campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
    const keys = await this.#keys(campaignId);
    const [totalField, cancelledField, expiredField] = await this.#redis.hmget(keys.campaign, 'total', 'cancelled', 'expired');
    const total = Number(totalField ?? 0);
    // Cancel and expiry move the backlog's rows to `cancelled` / `expired` as a block, without
    // rewriting each record; every row still queued in such a campaign is one of them or ends
    // so at its claim.
    const endedAs = cancelledField === '1' ? 'cancelled' : expiredField === '1' ? 'expired' : undefined;
    for (let start = 1; start <= total; start += pageSize) {
      const rowNumbers = Array.from({ length: Math.min(pageSize, total - start + 1) }, (_, i) => String(start + i));
      const values = await this.#redis.hmget(keys.rows, ...rowNumbers);
      const page: RowRecord[] = [];
      values.forEach((json, i) => {
        if (json === null) return;
        const record = toRecord(start + i, JSON.parse(json) as StoredRow);
        if (endedAs !== undefined && record.status === 'queued') record.status = endedAs;
        page.push(record);
      });
      yield page;
    }
  }

  async listCampaigns(): Promise<string[]> {
    return this.#redis.zrange(campaignIndexKey(this.#prefix), 0, -1);
  }

  async phoneNumbers(): Promise<string[]> {
    return (await this.#redis.smembers(phoneNumbersKey(this.#prefix))).sort();
  }
}

/** The claim script's answer for a claimed row: phone, values JSON ('' = none stored), header link ('' = none). */
function claimedRow(phone: string, valuesJson: string, headerLink: string): ClaimedRow {
  let values: string[] | undefined;
  if (valuesJson !== '') {
    const parsed = JSON.parse(valuesJson) as unknown;
    // cjson writes an empty list as {}.
    values = Array.isArray(parsed) ? parsed.map(String) : [];
  }
  return { to: phone, values, headerLink: headerLink === '' ? undefined : headerLink };
}


/** Runs `apply` once per phone number over that number's updates; answers come back in the updates' order. */
async function perNumber<U extends { phoneNumberId: string }, A>(updates: readonly U[], apply: (number: string, group: U[]) => Promise<A[]>): Promise<A[]> {
  const groups = new Map<string, number[]>();
  updates.forEach((u, i) => {
    const indexes = groups.get(u.phoneNumberId);
    if (indexes === undefined) groups.set(u.phoneNumberId, [i]);
    else indexes.push(i);
  });
  const answers = new Array<A>(updates.length);
  for (const [number, indexes] of groups) {
    const group = indexes.map((i) => updates[i] as U);
    const got = await apply(number, group);
    indexes.forEach((at, j) => (answers[at] = got[j] as A));
  }
  return answers;
}

function defineScripts(redis: RedisClient): void {
  if ('cwFeed' in redis) return;
  redis.defineCommand('cwRecordIngested', { numberOfKeys: 6, lua: RECORD_INGESTED });
  redis.defineCommand('cwPriorSends', { numberOfKeys: 2, lua: PRIOR_SENDS });
  redis.defineCommand('cwIngestInterrupted', { numberOfKeys: 1, lua: INGEST_INTERRUPTED });
  redis.defineCommand('cwLiftIngestPause', { numberOfKeys: 2, lua: LIFT_INGEST_PAUSE });
  redis.defineCommand('cwFinishIngest', { numberOfKeys: 1, lua: FINISH_INGEST });
  redis.defineCommand('cwClaim', { numberOfKeys: 7, lua: CLAIM });
  redis.defineCommand('cwSettle', { numberOfKeys: 8, lua: SETTLE });
  redis.defineCommand('cwConfirmInDoubt', { numberOfKeys: 5, lua: CONFIRM_IN_DOUBT });
  redis.defineCommand('cwHalt', { numberOfKeys: 7, lua: HALT });
  redis.defineCommand('cwPause', { numberOfKeys: 1, lua: PAUSE });
  redis.defineCommand('cwResume', { numberOfKeys: 2, lua: RESUME });
  redis.defineCommand('cwCancel', { numberOfKeys: 3, lua: CANCEL });
  redis.defineCommand('cwMarkForRetry', { numberOfKeys: 4, lua: MARK_FOR_RETRY });
  redis.defineCommand('cwFeed', { numberOfKeys: 3, lua: FEED });
  redis.defineCommand('cwReschedule', { numberOfKeys: 1, lua: RESCHEDULE });
  redis.defineCommand('cwApplyStatuses', { numberOfKeys: 1, lua: APPLY_STATUSES });
  redis.defineCommand('cwApplyInbound', { numberOfKeys: 1, lua: APPLY_INBOUND });
  redis.defineCommand('cwApplyPreferences', { numberOfKeys: 1, lua: APPLY_PREFERENCES });
}

/** A lanes hash (index → zones joined by &) as an array by index. */
function lanesOf(hash: Record<string, string>): string[][] {
  const lanes: string[][] = [];
  for (const [index, zones] of Object.entries(hash)) lanes[Number(index)] = zones === '' ? [] : zones.split('&');
  return Array.from(lanes, (zones) => zones ?? []);
}
