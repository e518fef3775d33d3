import type { RowStatus } from '../../campaigns/campaign.js';
import type {
  ClaimedRow,
  ClaimResult,
  FeedEvent,
  FeedOptions,
  FeedResult,
  InDoubtDecisions,
  SendLedger,
  Settlement,
  SettleResult,
  WindowedCampaigns,
} from '../../campaigns/ledger.js';
import { campaignDefinitionSchema } from '../../campaigns/campaign.js';
import { parseSendJobId, type SendJob } from '../../campaigns/send-job.js';
import type { MessagingLimit } from '../../config/number-settings.js';
import { numberScope } from '../key-scope.js';
import { lanesOf, type LedgerContext } from './ledger-context.js';
import {
  campaignLedgerKeys,
  confirmKeys,
  feedKeys,
  marketingCapKeys,
  optOutsKey,
  reachKey,
  reachPendingKey,
  sentGuardKeys,
  wamidsKey,
} from './ledger-keys.js';
import { PortfolioReach, REACH_RECORD_STALE_MS } from './ledger-reach.js';
import { DEFAULT_PORTFOLIO } from '../../portfolios/portfolios.js';
import { portfolioLimitKeys } from '../pacer/portfolio-limit-keys.js';
import { CLAIM_ANSWER_WIDTH, SETTLE_ROW_ARGS, SETTLE_SHARED_ARGS } from './ledger-scripts.js';
import { TickBatch } from './tick-batch.js';

/** How long a portfolio's messaging limit is kept after a worker or webhook last said it: a send's plan with no worker running shows it. */
const MESSAGING_LIMIT_KEPT_SECONDS = 2 * 86_400;

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

/**
 * Sending: the number's feed (feed.lua) and what the feeder reads first; each job's claim and
 * answer, one script call per campaign for those of one event-loop turn (claim.lua,
 * settle.lua); halts (halt.lua); the in-doubt rule (confirm-in-doubt.lua).
 */
export class LedgerSend implements Pick<
  SendLedger,
  'feed' | 'windowedCampaigns' | 'windowSize' | 'recordMessagingLimit' | 'claim' | 'settle' | 'halt' | 'isHeld' | 'confirmInDoubt'
> {
  readonly #claims = new TickBatch<PendingClaim, RawClaim>((id, items) => this.#claimMany(id, items));
  readonly #settles = new TickBatch<PendingSettle, RawSettle>((id, items) => this.#settleMany(id, items));

  readonly #reach: PortfolioReach;

  constructor(private readonly context: LedgerContext) {
    this.#reach = new PortfolioReach(context);
  }

  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const { redis, prefix, clock } = this.context;
    const { active, window } = feedKeys(prefix, phoneNumberId);
    // The messaging limit is the portfolio's: a lease of its places first (its own slot), the feed in the number's.
    const portfolio = options.portfolio ?? DEFAULT_PORTFOLIO;
    await this.#reach.seed(portfolio, phoneNumberId);
    const lease = await this.#reach.reserve(portfolio, phoneNumberId, options.windowSize, options.messagingLimit);
    const [flat, again, happened, heldBack, fedAt, records] = await redis.cwFeed(
      active,
      window,
      reachKey(prefix, phoneNumberId),
      reachPendingKey(prefix, phoneNumberId),
      numberScope(prefix, phoneNumberId),
      clock.arg(),
      options.windowSize,
      options.minBatch,
      options.refreshAfterMs,
      options.refreshMost,
      JSON.stringify(Object.fromEntries(options.openLanes ?? [])),
      lease?.granted ?? -1,
      phoneNumberId,
      lease?.id ?? '',
      REACH_RECORD_STALE_MS,
      options.mostRows ?? '',
    );
    const { limitHeld } = await this.#reach.commit(phoneNumberId, lease, records, heldBack);
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
    return limitHeld === undefined ? { jobs, refresh, events } : { jobs, refresh, events, limitHeld };
  }

  async windowedCampaigns(phoneNumberId: string): Promise<WindowedCampaigns> {
    const { redis, prefix, clock } = this.context;
    const now = await clock.now();
    const ids = await redis.zrange(feedKeys(prefix, phoneNumberId).active, 0, -1);
    if (ids.length === 0) return { now, campaigns: [] };
    const flags = redis.pipeline();
    // The number's campaigns share its slot: one pipeline even on a cluster.
    const keysOf = (id: string) => campaignLedgerKeys(prefix, phoneNumberId, id);
    for (const id of ids) flags.hget(keysOf(id).campaign, 'window');
    const answers = (await flags.exec()) ?? [];
    const withWindow = ids.filter((_, i) => answers[i]?.[1] === '1');
    if (withWindow.length === 0) return { now, campaigns: [] };
    const reads = redis.pipeline();
    for (const id of withWindow) reads.hget(keysOf(id).campaign, 'definition').hgetall(keysOf(id).lanes);
    const read = (await reads.exec()) ?? [];
    const campaigns: WindowedCampaigns['campaigns'] = [];
    withWindow.forEach((campaignId, i) => {
      const json = read[2 * i]?.[1];
      const window = typeof json === 'string' ? campaignDefinitionSchema.parse(JSON.parse(json)).window : undefined;
      if (window !== undefined)
        campaigns.push({ campaignId, window, lanes: lanesOf((read[2 * i + 1]?.[1] ?? {}) as Record<string, string>) });
    });
    return { now, campaigns };
  }

  async recordMessagingLimit(portfolio: string, limit: MessagingLimit): Promise<void> {
    await this.context.redis.set(
      portfolioLimitKeys(this.context.prefix, portfolio).limit,
      String(limit),
      'EX',
      MESSAGING_LIMIT_KEPT_SECONDS,
    );
  }

  async windowSize(phoneNumberId: string): Promise<number> {
    return this.context.redis.zcard(feedKeys(this.context.prefix, phoneNumberId).window);
  }

  async claim(job: SendJob, phoneNumberId?: string): Promise<ClaimResult> {
    const id = job.campaignId;
    const number = await this.context.numberOf(id, phoneNumberId);
    const [outcome, value, phone, values, headerLink] = await this.#claims.add(id, { job, phoneNumberId: number });
    switch (outcome) {
      case 'claimed':
        return { outcome: 'claimed', attempt: Number(value), row: claimedRow(phone ?? '', values ?? '', headerLink ?? '') };
      case 'settled':
        return phone === '1'
          ? { outcome: 'settled', status: value as RowStatus, completedCampaign: true }
          : { outcome: 'settled', status: value as RowStatus };
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

  async #claimMany(id: string, items: readonly PendingClaim[]): Promise<RawClaim[]> {
    const { redis, prefix, clock } = this.context;
    // One campaign per call, so one phone number.
    const phoneNumberId = items[0]?.phoneNumberId ?? '';
    const { sent, sentAt } = sentGuardKeys(prefix, phoneNumberId);
    const { window, active } = feedKeys(prefix, phoneNumberId);
    const keys = campaignLedgerKeys(prefix, phoneNumberId, id);
    const flat = await redis.cwClaim(
      keys.campaign,
      keys.rows,
      sent,
      sentAt,
      window,
      active,
      keys.pending,
      optOutsKey(prefix, phoneNumberId),
      marketingCapKeys(prefix, phoneNumberId).caps,
      clock.arg(),
      this.context.duplicateWindowMs,
      id,
      ...items.flatMap(({ job }) => [job.row, job.requeue ?? 0]),
    );
    // A claimed row's send must not leave before its claim is on the replicas (a failover
    // that lost it would let the row be claimed and sent again).
    await this.context.replicated(keys.campaign);
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
    const { redis, prefix, clock, brake } = this.context;
    const { confirmWindowMs, heldPatienceMs } = this.context;
    const args: (string | number)[] = [id, clock.arg(), brake.window, brake.failureShare, confirmWindowMs, heldPatienceMs];
    for (const { job, settlement } of items) {
      const sent = settlement.status === 'sent' || settlement.status === 'held';
      args.push(
        job.row,
        settlement.status,
        sent ? settlement.wamid : '',
        sent ? '' : settlement.errorCode,
        sent ? '' : settlement.errorDetail,
        job.requeue ?? 0,
      );
    }
    if (args.length !== SETTLE_SHARED_ARGS + SETTLE_ROW_ARGS * items.length)
      throw new Error('settle arguments out of step with the script');
    const keys = await this.context.keys(id, items[0]?.phoneNumberId);
    const { phoneNumberId } = keys;
    const { sent, sentAt } = sentGuardKeys(prefix, phoneNumberId);
    const flat = await redis.cwSettle(
      keys.campaign,
      keys.rows,
      wamidsKey(prefix, phoneNumberId),
      keys.recent,
      sent,
      sentAt,
      feedKeys(prefix, phoneNumberId).window,
      confirmKeys(prefix, phoneNumberId).confirm,
      ...args,
    );
    return items.map((_, i) => [String(flat[3 * i] ?? 'missing'), Number(flat[3 * i + 1] ?? 0), Number(flat[3 * i + 2] ?? 0)]);
  }

  async confirmInDoubt(phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
    const { redis, prefix, clock } = this.context;
    const { confirm, statusSeen } = confirmKeys(prefix, phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(prefix, phoneNumberId);
    const [resent, unknown, ended, heldExpired, ...completed] = await redis.cwConfirmInDoubt(
      confirm,
      statusSeen,
      feedKeys(prefix, phoneNumberId).active,
      sent,
      sentAt,
      numberScope(prefix, phoneNumberId),
      clock.arg(),
      limit,
    );
    return {
      resent: Number(resent),
      unknown: Number(unknown),
      ended: Number(ended),
      heldExpired: Number(heldExpired),
      completedCampaigns: completed.map(String),
    };
  }

  async halt(
    job: SendJob,
    errorCode: string,
    errorDetail: string,
    phoneNumberId?: string,
    templateHeld = false,
  ): Promise<{ completedCampaign: boolean; pausedCampaign: boolean }> {
    const { redis, prefix, clock } = this.context;
    const id = job.campaignId;
    const keys = await this.context.keys(id, phoneNumberId);
    const { sent, sentAt } = sentGuardKeys(prefix, keys.phoneNumberId);
    const { window, active } = feedKeys(prefix, keys.phoneNumberId);
    const [, completed, paused] = await redis.cwHalt(
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
      clock.arg(),
      id,
      templateHeld ? '1' : '0',
    );
    return { completedCampaign: completed === 1, pausedCampaign: paused === 1 };
  }

  async isHeld(campaignId: string): Promise<boolean> {
    const [paused, cancelled] = await this.context.redis.hmget((await this.context.keys(campaignId)).campaign, 'paused', 'cancelled');
    return paused === '1' || cancelled === '1';
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
