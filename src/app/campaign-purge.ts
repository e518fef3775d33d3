import { dueForPurge } from '../campaigns/control/retention-policy.js';
import { removeCampaignJobs } from '../queue/campaign-jobs-cleanup.js';
import type { AppContext } from './app-context.js';
import { expireAudiences } from './audiences.js';
import { RedisClickLinks } from '../redis/clicks/redis-click-links.js';
import { openSendQueue } from '../queue/open-send-queue.js';

export interface PurgeSummary {
  id: string;
  rows: number;
  wamids: number;
  jobs: number;
  purgedAt: number;
  alreadyPurged: boolean;
}

/** `campaign purge ID`: the ledger's personal data and its tracked links, then the campaign's jobs kept in its number's queue. */
export async function runPurge(context: AppContext, campaignId: string): Promise<PurgeSummary> {
  const { config, redis } = context;
  const ledger = await context.ledger.purge(campaignId);
  // Its tracked links go with its rows: their tokens then answer 404 (an already purged campaign's that remain go now).
  await new RedisClickLinks(redis, config.queuePrefix).forget(ledger.phoneNumberId, campaignId);
  const queue = openSendQueue(ledger.phoneNumberId, redis, config.queuePrefix);
  queue.on('error', (error) => context.logger.warn({ err: error }, 'send queue error'));
  try {
    const jobs = await removeCampaignJobs(queue, campaignId);
    return {
      id: campaignId,
      rows: ledger.rows,
      wamids: ledger.wamids,
      jobs,
      purgedAt: ledger.purgedAt,
      alreadyPurged: ledger.alreadyPurged,
    };
  } finally {
    await queue.close();
  }
}

const HOUR_MS = 3_600_000;

/**
 * RETENTION_DAYS, run by every worker: once at start and then hourly, purges the campaigns
 * that finished longer ago than the retention. With several workers, a lock in Redis lets
 * one of them do it at a time.
 */
export async function purgeExpired(context: AppContext, now?: number): Promise<string[]> {
  const { config, ledger, logger } = context;
  if (config.retentionMs <= 0) return [];
  const release = await ledger.lockRetention();
  if (release === undefined) return [];
  try {
    // Finish times are on the ledger's clock: retention is judged by it too.
    const at = now ?? (await ledger.now());
    const statuses = [];
    for (const id of await ledger.listCampaigns()) {
      const status = await ledger.status(id);
      if (status !== undefined) statuses.push(status);
    }
    const purged: string[] = [];
    for (const id of dueForPurge(statuses, at, config.retentionMs)) {
      const summary = await runPurge(context, id);
      logger.info({ campaignId: id, rows: summary.rows }, 'purged campaign (retention)');
      purged.push(id);
    }
    return purged;
  } finally {
    await release();
  }
}

export function startRetention(context: AppContext): { stop(): void } {
  // AUDIENCE_RETENTION_DAYS runs beside it: each audience's delete is one transaction, so workers running it at once delete it once.
  const run = () =>
    Promise.all([
      purgeExpired(context).catch((error: unknown) =>
        context.logger.error({ err: error }, 'retention purge failed; it runs again within the hour'),
      ),
      expireAudiences(context).catch((error: unknown) =>
        context.logger.error({ err: error }, 'audience retention failed; it runs again within the hour'),
      ),
    ]);
  void run();
  const timer = setInterval(() => void run(), HOUR_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
