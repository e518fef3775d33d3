import type { Redis } from 'ioredis';
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
  RESCHEDULE,
  RESUME,
  SETTLE,
  CONFIRM_IN_DOUBT,
  SETTLE_ROW_ARGS,
  SETTLE_SHARED_ARGS,
} from './ledger-scripts.js';
import { TickBatch } from './tick-batch.js';
import { z } from 'zod';
import { safeJson } from '../cloud-api/graph-answers.js';

const optOutSourceSchema = z.object({ campaignId: z.string(), row: z.number(), at: z.number(), via: z.enum(['keyword', 'user_preferences', 'operator']).optional() });

type Arg = string | number;

interface LedgerCommands {
  cwRecordIngested(campaign: string, rows: string, sent: string, sentAt: string, pending: string, active: string, ...args: Arg[]): Promise<[string[], string[], number]>;
  cwIngestInterrupted(campaign: string, reason: string, now: number): Promise<number>;
  cwLiftIngestPause(campaign: string, recent: string): Promise<number>;
  cwFinishIngest(campaign: string, now: number): Promise<number>;
  cwClaim(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<string[]>;
  cwSettle(campaign: string, rows: string, wamids: string, recent: string, sent: string, sentAt: string, window: string, confirm: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwConfirmInDoubt(confirm: string, seen: string, active: string, sent: string, sentAt: string, prefix: string, now: number, limit: number): Promise<(string | number)[]>;
  cwHalt(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<[string, number, number?]>;
  cwPause(campaign: string, reason: string, now: number): Promise<string>;
  cwResume(campaign: string, recent: string): Promise<string>;
  cwCancel(campaign: string, pending: string, active: string, campaignId: string, now: number, reason: string): Promise<[string, number]>;
  cwReschedule(campaign: string, startsAt: number): Promise<string>;
  cwApplyStatuses(wamids: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwApplyInbound(wamids: string, ...args: Arg[]): Promise<number[]>;
  cwApplyPreferences(...args: Arg[]): Promise<number>;
  cwMarkForRetry(campaign: string, rows: string, pending: string, active: string, ...args: Arg[]): Promise<[number, number, number?, number?]>;
  cwFeed(active: string, window: string, ...args: Arg[]): Promise<[string[], string[], string[]]>;
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
}

/** The duplicate-send guard of a phone number: fingerprint → "campaign/row/ms", and fingerprint → ms for pruning. */
export function sentGuardKeys(prefix: string, phoneNumberId: string): { sent: string; sentAt: string } {
  return { sent: `${prefix}:sent:${phoneNumberId}`, sentAt: `${prefix}:sent-at:${phoneNumberId}` };
}

/**
 * The keys of one campaign's ledger: its hash, its rows, and its backlog (rows still to be
 * fed a job; the feed script builds this name from the prefix too).
 */
export function campaignLedgerKeys(prefix: string, campaignId: string): { campaign: string; rows: string; pending: string; lanes: string } {
  const campaign = `${prefix}:campaign:${campaignId}`;
  return { campaign, rows: `${campaign}:rows`, pending: `${campaign}:pending`, lanes: `${campaign}:lanes` };
}

/**
 * The backlog of a send-window lane: `pending:<lane>` (the scripts build it the same way).
 * A campaign without a window keeps its backlog in `pending` itself.
 */
export function laneBacklogKey(pendingKey: string, lane: number): string {
  return `${pendingKey}:${lane}`;
}

/** A phone number's feed: its campaigns that may have rows to feed (→ priority), and the jobs fed and not done (→ ms fed). */
export function feedKeys(prefix: string, phoneNumberId: string): { active: string; window: string } {
  return { active: `${prefix}:feed:${phoneNumberId}:campaigns`, window: `${prefix}:feed:${phoneNumberId}:window` };
}

/** A phone number's in-doubt rows (→ confirm deadline) and the latest claim time a status webhook came for. */
export function confirmKeys(prefix: string, phoneNumberId: string): { confirm: string; statusSeen: string } {
  return { confirm: `${prefix}:confirm:${phoneNumberId}`, statusSeen: `${prefix}:status-seen:${phoneNumberId}` };
}

/** How the feed script ranks priorities: lower first. */
export const PRIORITY_SCORE = { high: 0, normal: 1, low: 2 } as const;

/** The campaign ledger in Redis: a hash per campaign (definition + counters), a hash of rows. */
export class RedisLedger implements CampaignLedger {
  readonly #redis: Redis & LedgerCommands;
  readonly #prefix: string;
  readonly #brake: AutoPauseSettings;
  readonly #duplicateWindowMs: number;
  readonly #confirmWindowMs: number;
  /** Claims and answers of one event-loop turn go to Redis as one script call per campaign. */
  readonly #claims = new TickBatch<PendingClaim, RawClaim>((id, items) => this.#claimMany(id, items));
  readonly #settles = new TickBatch<PendingSettle, RawSettle>((id, items) => this.#settleMany(id, items));

  constructor(redis: Redis, prefix: string, options: LedgerOptions = {}) {
    defineScripts(redis);
    this.#redis = redis as Redis & LedgerCommands;
    this.#prefix = prefix;
    this.#brake = options.autoPause ?? BRAKE_OFF;
    this.#duplicateWindowMs = options.duplicateWindowMs ?? 0;
    this.#confirmWindowMs = options.confirmWindowMs ?? 0;
  }

  #campaignKey(id: string): string {
    return campaignLedgerKeys(this.#prefix, id).campaign;
  }
  #rowsKey(id: string): string {
    return campaignLedgerKeys(this.#prefix, id).rows;
  }
  #wamidsKey(): string {
    return `${this.#prefix}:wamids`;
  }
  #pendingKey(id: string): string {
    return campaignLedgerKeys(this.#prefix, id).pending;
  }
  /** 1/0 per recent send (failed or not), for the error-spike brake. */
  #recentKey(id: string): string {
    return `${this.#prefix}:campaign:${id}:recent`;
  }

  async createCampaign(definition: CampaignDefinition): Promise<void> {
    const key = this.#campaignKey(definition.id);
    // The feed script reads the schedule from the hash, not from the definition's JSON.
    const schedule: string[] = [];
    for (const field of ['startsAt', 'startDeadline', 'expiresAt'] as const) {
      const value = definition[field];
      if (value !== undefined) schedule.push(field, String(value));
    }
    // `window`: the scripts keep this campaign's backlog in lanes (pending:<lane>).
    if (definition.window !== undefined) schedule.push('window', '1');
    if (schedule.length > 0) await this.#redis.hset(key, ...schedule);
    await this.#redis
      .multi()
      .hsetnx(this.#campaignKey(definition.id), 'definition', JSON.stringify(definition))
      .hsetnx(this.#campaignKey(definition.id), 'createdAt', String(definition.createdAt))
      .hsetnx(this.#campaignKey(definition.id), 'priority', String(PRIORITY_SCORE[definition.priority ?? 'normal']))
      .zadd(`${this.#prefix}:campaigns`, 'NX', definition.createdAt, definition.id)
      .exec();
  }

  async getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    const json = await this.#redis.hget(this.#campaignKey(id), 'definition');
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
    const [queued, already, reopened] = await this.#redis.cwRecordIngested(
      this.#campaignKey(campaignId),
      this.#rowsKey(campaignId),
      sent,
      sentAt,
      this.#pendingKey(campaignId),
      feedKeys(this.#prefix, phoneNumberId).active,
      JSON.stringify(compact),
      campaignId,
      Date.now(),
      this.#duplicateWindowMs,
    );
    const alreadySent: { row: number; detail: string }[] = [];
    for (let i = 0; i < already.length; i += 2) alreadySent.push({ row: Number(already[i]), detail: already[i + 1] ?? '' });
    return { queued: queued.map(Number), alreadySent, reopened: Number(reopened) };
  }

  async allowRepeat(campaignId: string): Promise<void> {
    await this.#redis.hset(this.#campaignKey(campaignId), 'allowRepeat', '1');
  }

  async markIngestInterrupted(campaignId: string, reason: string): Promise<boolean> {
    return (await this.#redis.cwIngestInterrupted(this.#campaignKey(campaignId), reason, Date.now())) === 1;
  }

  async liftIngestPause(campaignId: string): Promise<boolean> {
    return (await this.#redis.cwLiftIngestPause(this.#campaignKey(campaignId), this.#recentKey(campaignId))) === 1;
  }

  async finishIngest(campaignId: string): Promise<boolean> {
    return (await this.#redis.cwFinishIngest(this.#campaignKey(campaignId), Date.now())) === 1;
  }

  async claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    const id = job.campaignId;
    phoneNumberId = await this.#phoneNumberOf(id, phoneNumberId);
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
    const flat = await this.#redis.cwClaim(
      this.#campaignKey(id),
      this.#rowsKey(id),
      sent,
      sentAt,
      window,
      active,
      this.#pendingKey(id),
      Date.now(),
      this.#duplicateWindowMs,
      id,
      ...items.flatMap(({ job }) => [job.row, job.requeue ?? 0]),
    );
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
    const args: Arg[] = [id, Date.now(), this.#brake.window, this.#brake.failureShare, this.#confirmWindowMs];
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
    const phoneNumberId = await this.#phoneNumberOf(id, items[0]?.phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(this.#prefix, phoneNumberId);
    const flat = await this.#redis.cwSettle(
      this.#campaignKey(id),
      this.#rowsKey(id),
      this.#wamidsKey(),
      this.#recentKey(id),
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
      this.#prefix,
      Date.now(),
      limit,
    );
    return { resent: Number(resent), unknown: Number(unknown), ended: Number(ended), completedCampaigns: completed.map(String) };
  }

  async halt(job: SendJob, errorCode: string, errorDetail: string, phoneNumberId?: string): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    const id = job.campaignId;
    const number = await this.#phoneNumberOf(id, phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(this.#prefix, number);
    const { window, active } = feedKeys(this.#prefix, number);
    const [, completed, paused] = await this.#redis.cwHalt(
      this.#campaignKey(id),
      this.#rowsKey(id),
      sent,
      sentAt,
      window,
      active,
      this.#pendingKey(id),
      job.row,
      job.requeue ?? 0,
      errorCode,
      errorDetail,
      Date.now(),
      id,
    );
    return { completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  /** The campaign's phone number: given by the caller (the worker knows it), else read from its definition. */
  async #phoneNumberOf(campaignId: string, given: string | undefined): Promise<string> {
    if (given !== undefined && given !== '') return given;
    return (await this.getCampaign(campaignId))?.phoneNumberId ?? '';
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const [paused, cancelled] = await this.#redis.hmget(this.#campaignKey(campaignId), 'paused', 'cancelled');
    return paused === '1' || cancelled === '1';
  }

  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const outcome = await this.#redis.cwPause(this.#campaignKey(campaignId), reason, Date.now());
    return { outcome } as PauseResult;
  }

  async resume(campaignId: string): Promise<ResumeResult> {
    const outcome = await this.#redis.cwResume(this.#campaignKey(campaignId), this.#recentKey(campaignId));
    return { outcome } as ResumeResult;
  }

  async cancel(campaignId: string): Promise<CancelResult> {
    const phoneNumberId = (await this.getCampaign(campaignId))?.phoneNumberId ?? '';
    const [outcome, cancelled] = await this.#redis.cwCancel(
      this.#campaignKey(campaignId),
      this.#pendingKey(campaignId),
      feedKeys(this.#prefix, phoneNumberId).active,
      campaignId,
      Date.now(),
      '',
    );
    return outcome === 'cancelled' ? { outcome, cancelled: Number(cancelled) } : ({ outcome } as CancelResult);
  }

  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return { outcome: (await this.#redis.cwReschedule(this.#campaignKey(campaignId), startsAt)) as RescheduleResult['outcome'] };
  }

  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    // An empty range: nothing to look at (the script's HMGET would get no fields).
    if (fromRow > toRow) return { requeued: 0, noPayload: 0, held: 0, heldUntil: 0 };
    const phoneNumberId = (await this.getCampaign(campaignId))?.phoneNumberId ?? '';
    const [requeued, noPayload, held, heldUntil] = await this.#redis.cwMarkForRetry(
      this.#campaignKey(campaignId),
      this.#rowsKey(campaignId),
      this.#pendingKey(campaignId),
      feedKeys(this.#prefix, phoneNumberId).active,
      fromRow,
      toRow,
      selection.codes.join(','),
      selection.failed ? '1' : '0',
      selection.unknown ? '1' : '0',
      campaignId,
      Date.now(),
      RETRY_HOLD_131049_MS,
    );
    return { requeued, noPayload, held: Number(held ?? 0), heldUntil: Number(heldUntil ?? 0) };
  }

  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const { active, window } = feedKeys(this.#prefix, phoneNumberId);
    // Redis's clock, as every other time in the ledger's scripts is the caller's: one clock
    // for every worker of the number, whichever host it runs on.
    const now = options.now ?? (await this.#redisNow());
    const [flat, again, happened] = await this.#redis.cwFeed(
      active,
      window,
      this.#prefix,
      now,
      options.windowSize,
      options.minBatch,
      options.refreshAfterMs,
      options.refreshMost,
      JSON.stringify(Object.fromEntries(options.openLanes ?? [])),
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
      if (kind === 'started') events.push({ kind, campaignId, startsAt: detail === '' ? undefined : Number(detail), at: now });
      else if (kind === 'expired' || kind === 'deadline') events.push({ kind, campaignId, rows: Number(detail) });
      else if (kind === 'completed') events.push({ kind, campaignId });
    }
    return { jobs, refresh, events };
  }

  /** Redis's clock in ms: the one clock of every worker and command, whatever host it runs on. */
  async #redisNow(): Promise<number> {
    const [seconds, micros] = await this.#redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async recordLanes(campaignId: string, lanes: readonly { index: number; zones: readonly string[] }[]): Promise<void> {
    if (lanes.length === 0) return;
    await this.#redis.hset(campaignLedgerKeys(this.#prefix, campaignId).lanes, ...lanes.flatMap((lane) => [String(lane.index), lane.zones.join('&')]));
  }

  async lanes(campaignId: string): Promise<string[][]> {
    return lanesOf(await this.#redis.hgetall(campaignLedgerKeys(this.#prefix, campaignId).lanes));
  }

  async laneBacklogs(campaignId: string): Promise<LaneBacklog[]> {
    const lanes = await this.lanes(campaignId);
    if (lanes.length === 0) return [];
    const pending = this.#pendingKey(campaignId);
    const pipeline = this.#redis.pipeline();
    lanes.forEach((_, lane) => pipeline.llen(laneBacklogKey(pending, lane)));
    const lengths = (await pipeline.exec()) ?? [];
    return lanes.map((zones, lane) => ({ lane, zones, pending: Number(lengths[lane]?.[1] ?? 0) }));
  }

  async windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns> {
    const now = await this.#redisNow();
    const ids = await this.#redis.zrange(feedKeys(this.#prefix, phoneNumberId).active, 0, -1);
    if (ids.length === 0) return { now, campaigns: [] };
    const flags = this.#redis.pipeline();
    for (const id of ids) flags.hget(this.#campaignKey(id), 'window');
    const answers = (await flags.exec()) ?? [];
    const withWindow = ids.filter((_, i) => answers[i]?.[1] === '1');
    if (withWindow.length === 0) return { now, campaigns: [] };
    const reads = this.#redis.pipeline();
    for (const id of withWindow) reads.hget(this.#campaignKey(id), 'definition').hgetall(campaignLedgerKeys(this.#prefix, id).lanes);
    const read = (await reads.exec()) ?? [];
    const campaigns: WindowedCampaigns['campaigns'] = [];
    withWindow.forEach((campaignId, i) => {
      const json = read[2 * i]?.[1];
      const window = typeof json === 'string' ? campaignDefinitionSchema.parse(JSON.parse(json)).window : undefined;
      if (window !== undefined) campaigns.push({ campaignId, window, lanes: lanesOf((read[2 * i + 1]?.[1] ?? {}) as Record<string, string>) });
    });
    return { now, campaigns };
  }

  async applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    if (updates.length === 0) return [];
    const args: Arg[] = [this.#prefix, Date.now()];
    for (const u of updates) args.push(u.wamid, u.kind, u.at, u.callbackData ?? '', u.code ?? '', u.detail ?? '', u.phoneNumberId);
    const flat = await this.#redis.cwApplyStatuses(this.#wamidsKey(), ...args);
    const outcomes: StatusOutcome[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      outcomes.push({ outcome: String(flat[i]) as StatusOutcome['outcome'], completedCampaign: Number(flat[i + 1]) === 1 });
    }
    return outcomes;
  }

  async applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    if (updates.length === 0) return [];
    const args: Arg[] = [this.#prefix, Date.now(), SERVICE_WINDOW_MS];
    for (const u of updates) args.push(u.phoneNumberId, u.waId, u.at, u.replyTo ?? '', u.reply ?? '', u.optOut ? '1' : '0');
    const answered = await this.#redis.cwApplyInbound(this.#wamidsKey(), ...args);
    return answered.map((n) => ({ answeredRow: Number(n) === 1 }));
  }

  async applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const args: Arg[] = [this.#prefix];
    for (const u of updates) args.push(u.phoneNumberId, u.waId, u.value, u.at);
    await this.#redis.cwApplyPreferences(...args);
  }

  async serviceWindowOpen(phoneNumberId: string, waId: string): Promise<boolean> {
    return (await this.#redis.exists(this.#serviceWindowKey(phoneNumberId, waId))) === 1;
  }

  async serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]> {
    if (waIds.length === 0) return [];
    // One MGET for the lot: a key exists exactly while its window is open (apply-inbound.lua sets it with PX).
    const closes = await this.#redis.mget(...waIds.map((waId) => this.#serviceWindowKey(phoneNumberId, waId)));
    return closes.map((value) => value !== null);
  }

  #serviceWindowKey(phoneNumberId: string, waId: string): string {
    return `${this.#prefix}:service-window:${phoneNumberId}:${waId.replace(/^\+/, '')}`;
  }

  async windowSize(phoneNumberId: string): Promise<number> {
    return this.#redis.zcard(feedKeys(this.#prefix, phoneNumberId).window);
  }

  async addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: Date.now(), via: 'operator' };
    return (await this.#redis.hsetnx(this.#optOutsKey(phoneNumberId), phone, JSON.stringify(source))) === 1;
  }

  async removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return (await this.#redis.hdel(this.#optOutsKey(phoneNumberId), phone)) === 1;
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    await this.#redis.hset(this.#optOutsKey(phoneNumberId), phone, JSON.stringify({ ...source, at: Date.now() }));
  }

  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    const found = new Map<string, OptOutSource>();
    let cursor = '0';
    do {
      const [next, flat] = await this.#redis.hscan(this.#optOutsKey(phoneNumberId), cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const parsed = optOutSourceSchema.safeParse(safeJson(flat[i + 1] ?? ''));
        // An entry this version cannot read still means the recipient opted out.
        found.set(flat[i] ?? '', parsed.success ? parsed.data : { campaignId: '?', row: 0, at: 0 });
      }
    } while (cursor !== '0');
    return found;
  }

  #optOutsKey(phoneNumberId: string): string {
    return `${this.#prefix}:optouts:${phoneNumberId}`;
  }

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const fields = await this.#redis.hgetall(this.#campaignKey(campaignId));
    if (fields.definition === undefined) return undefined;
    const counts = { total: Number(fields.total ?? 0), delivered: Number(fields['n:delivered'] ?? 0), read: Number(fields['n:read'] ?? 0) } as CampaignCounts;
    for (const status of ROW_STATUSES) counts[status] = Number(fields[`n:${status}`] ?? 0);
    const finishedAt = fields.finishedAt === undefined ? undefined : Number(fields.finishedAt);
    const paused = fields.paused === '1';
    const ms = (field: string | undefined) => (field === undefined ? undefined : Number(field));
    const startsAt = ms(fields.startsAt);
    const scheduled = startsAt !== undefined && fields.startedAt === undefined && finishedAt === undefined && startsAt > (await this.#redisNow());
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
    const [totalField, cancelledField, expiredField] = await this.#redis.hmget(this.#campaignKey(campaignId), 'total', 'cancelled', 'expired');
    const total = Number(totalField ?? 0);
    // Cancel and expiry move the backlog's rows to `cancelled` / `expired` as a block, without
    // rewriting each record; every row still queued in such a campaign is one of them or ends
    // so at its claim.
    const endedAs = cancelledField === '1' ? 'cancelled' : expiredField === '1' ? 'expired' : undefined;
    for (let start = 1; start <= total; start += pageSize) {
      const rowNumbers = Array.from({ length: Math.min(pageSize, total - start + 1) }, (_, i) => String(start + i));
      const values = await this.#redis.hmget(this.#rowsKey(campaignId), ...rowNumbers);
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
    return this.#redis.zrange(`${this.#prefix}:campaigns`, 0, -1);
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


function defineScripts(redis: Redis): void {
  if ('cwFeed' in redis) return;
  redis.defineCommand('cwRecordIngested', { numberOfKeys: 6, lua: RECORD_INGESTED });
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
  redis.defineCommand('cwFeed', { numberOfKeys: 2, lua: FEED });
  redis.defineCommand('cwReschedule', { numberOfKeys: 1, lua: RESCHEDULE });
  redis.defineCommand('cwApplyStatuses', { numberOfKeys: 1, lua: APPLY_STATUSES });
  redis.defineCommand('cwApplyInbound', { numberOfKeys: 1, lua: APPLY_INBOUND });
  redis.defineCommand('cwApplyPreferences', { numberOfKeys: 0, lua: APPLY_PREFERENCES });
}

/** A lanes hash (index → zones joined by &) as an array by index. */
function lanesOf(hash: Record<string, string>): string[][] {
  const lanes: string[][] = [];
  for (const [index, zones] of Object.entries(hash)) lanes[Number(index)] = zones === '' ? [] : zones.split('&');
  return Array.from(lanes, (zones) => zones ?? []);
}
