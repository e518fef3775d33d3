import { campaignDefinitionSchema } from '../../campaigns/campaign.js';
import type { FeedEvent, FeedOptions, FeedResult, SendLedger, WindowedCampaigns } from '../../campaigns/ledger.js';
import { parseSendJobId, type QueuedSend, type SendGroup, type SendJob } from '../../campaigns/send-job.js';
import type { MessagingLimit } from '../../config/number-settings.js';
import { DEFAULT_PORTFOLIO } from '../../portfolios/portfolios.js';
import { numberScope } from '../key-scope.js';
import { portfolioLimitKeys } from '../pacer/portfolio-limit-keys.js';
import { lanesOf, type LedgerContext } from './ledger-context.js';
import { campaignLedgerKeys, feedKeys } from './ledger-keys.js';
import { PortfolioReach, REACH_RECORD_STALE_MS } from './ledger-reach.js';
import { feedScriptKeys, groupDoneKeys } from './script-keys.js';

/** How long a portfolio's messaging limit is kept after a worker or webhook last said it: a send's plan with no worker running shows it. */
const MESSAGING_LIMIT_KEPT_SECONDS = 2 * 86_400;

/**
 * The feeder's side of the ledger: a number's feed (feed.lua) between a lease of its
 * portfolio's messaging limit and its commit (ledger-reach.ts), and what the feeder reads
 * before it feeds: the number's campaigns with a send window, its window's size, the limit.
 */
export class LedgerFeed implements Pick<SendLedger, 'feed' | 'windowedCampaigns' | 'windowSize' | 'recordMessagingLimit' | 'groupDone'> {
  readonly #reach: PortfolioReach;

  constructor(private readonly context: LedgerContext) {
    this.#reach = new PortfolioReach(context);
  }

  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const { redis, prefix, clock } = this.context;
    // The messaging limit is the portfolio's: a lease of its places first (its own slot), the feed in the number's.
    const portfolio = options.portfolio ?? DEFAULT_PORTFOLIO;
    await this.#reach.seed(portfolio, phoneNumberId);
    const lease = await this.#reach.reserve(portfolio, phoneNumberId, options.windowSize, options.messagingLimit);
    const [flat, again, happened, heldBack, fedAt, records, grouped] = await redis.cwFeed(
      ...feedScriptKeys(prefix, phoneNumberId),
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
      options.groupSize ?? 1,
    );
    const { limitHeld } = await this.#reach.commit(phoneNumberId, lease, records, heldBack);
    const jobs = fedRows(flat);
    const refresh = queuedSends(again);
    const events = feedEvents(happened, Number(fedAt));
    const result: FeedResult = { jobs, refresh, events };
    if (grouped.length > 0) result.groups = queuedSends(grouped);
    if (limitHeld !== undefined) result.limitHeld = limitHeld;
    return result;
  }

  async groupDone(phoneNumberId: string, group: SendGroup): Promise<void> {
    await this.context.redis.cwGroupDone(...groupDoneKeys(this.context.prefix, phoneNumberId), group.group);
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

  /** Rows in the window: its entries, less its groups, plus the rows they hold (as feed.lua counts its room). */
  async windowSize(phoneNumberId: string): Promise<number> {
    const { window, groups, groupRows } = feedKeys(this.context.prefix, phoneNumberId);
    // The number's keys share its slot: one transaction even on a cluster.
    const [entries, groupCount, rows] = ((await this.context.redis.multi().zcard(window).hlen(groups).get(groupRows).exec()) ?? []).map(
      ([error, value]) => {
        if (error) throw error;
        return Number(value ?? 0);
      },
    );
    return (entries ?? 0) - (groupCount ?? 0) + (rows ?? 0);
  }
}

/** feed.lua's rows fed, `{campaign, row, job number, …}`, as jobs of one row. */
function fedRows(flat: readonly string[]): SendJob[] {
  const rows: SendJob[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const job: SendJob = { campaignId: flat[i] ?? '', row: Number(flat[i + 1]) };
    const k = Number(flat[i + 2] ?? 0);
    if (k > 0) job.requeue = k;
    rows.push(job);
  }
  return rows;
}

/** feed.lua's `{job ID, its rows ('' for a job of one row), …}` as the jobs they name. */
function queuedSends(pairs: readonly string[]): QueuedSend[] {
  const jobs: QueuedSend[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const [id = '', rows = ''] = pairs.slice(i, i + 2);
    const job = rows === '' ? parseSendJobId(id) : { group: id, rows };
    if (job !== undefined) jobs.push(job);
  }
  return jobs;
}

/** feed.lua's `{kind, campaign, detail, …}` as events; `fedAt` is the ledger's time of the feed. */
function feedEvents(happened: readonly string[], fedAt: number): FeedEvent[] {
  const events: FeedEvent[] = [];
  for (let i = 0; i + 2 < happened.length; i += 3) {
    const [kind, campaignId = '', detail = ''] = happened.slice(i, i + 3);
    if (kind === 'started') events.push({ kind, campaignId, startsAt: detail === '' ? undefined : Number(detail), at: fedAt });
    else if (kind === 'expired' || kind === 'deadline') events.push({ kind, campaignId, rows: Number(detail) });
    else if (kind === 'completed') events.push({ kind, campaignId });
  }
  return events;
}
