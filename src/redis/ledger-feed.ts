import { campaignDefinitionSchema } from '../campaigns/campaign.js';
import type { FeedEvent, FeedOptions, FeedResult, SendLedger, WindowedCampaigns } from '../campaigns/ledger.js';
import { parseSendJobId, type SendJob } from '../campaigns/send-job.js';
import { numberScope } from './key-scope.js';
import { lanesOf, type LedgerContext } from './ledger-context.js';
import type { MessagingLimit } from '../config/number-settings.js';
import { campaignLedgerKeys, feedKeys, messagingLimitKey, reachKey } from './ledger-keys.js';

/**
 * The feed of a phone number's window (feed.lua, the atomic cursor from its campaigns'
 * backlogs), and what the feeder reads before it: the windowed campaigns and their lanes, on
 * the ledger's clock.
 */
/** How long a number's messaging limit is kept after its worker last said it: the plan of a send with no worker running still shows it. */
const MESSAGING_LIMIT_KEPT_SECONDS = 2 * 86_400;

export class LedgerFeed implements Pick<SendLedger, 'feed' | 'windowedCampaigns' | 'windowSize' | 'recordMessagingLimit'> {
  constructor(private readonly context: LedgerContext) {}

  async feed(phoneNumberId: string, options: FeedOptions): Promise<FeedResult> {
    const { redis, prefix, clock } = this.context;
    const { active, window } = feedKeys(prefix, phoneNumberId);
    const [flat, again, happened, held, fedAt] = await redis.cwFeed(
      active,
      window,
      reachKey(prefix, phoneNumberId),
      numberScope(prefix, phoneNumberId),
      clock.arg(),
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
      if (window !== undefined) campaigns.push({ campaignId, window, lanes: lanesOf((read[2 * i + 1]?.[1] ?? {}) as Record<string, string>) });
    });
    return { now, campaigns };
  }

  async recordMessagingLimit(phoneNumberId: string, limit: MessagingLimit): Promise<void> {
    await this.context.redis.set(messagingLimitKey(this.context.prefix, phoneNumberId), String(limit), 'EX', MESSAGING_LIMIT_KEPT_SECONDS);
  }

  async windowSize(phoneNumberId: string): Promise<number> {
    return this.context.redis.zcard(feedKeys(this.context.prefix, phoneNumberId).window);
  }
}
