import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { reportFileName } from '../campaigns/campaign-name.js';
import type { CampaignDefinition } from '../campaigns/campaign.js';
import { campaignNotFound } from '../campaigns/campaign-not-found.js';
import type { UserIdsOf } from '../campaigns/report/report.js';
import { AppError } from '../errors/app-error.js';
import { reportUserIds } from '../redis/webhooks/redis-user-links.js';
import type { AppContext } from './app-context.js';

/** What a report of a campaign is made from: its name, where `campaign report` saves it, and its `user_id` column's source. */
export interface ReportSource {
  definition: CampaignDefinition | undefined;
  savedPath: string;
  userIds: UserIdsOf;
}

/**
 * A campaign's report source, or why there is no report: CAMPAIGN_NOT_FOUND, or
 * CAMPAIGN_PURGED (its rows are gone, so a report now would be empty; the report saved
 * before the purge is named and left as it is).
 */
export async function reportSource(context: Pick<AppContext, 'config' | 'ledger' | 'redis'>, campaignId: string): Promise<ReportSource> {
  const { ledger, config } = context;
  const status = await ledger.status(campaignId);
  if (status === undefined) throw campaignNotFound(campaignId);
  const definition = await ledger.getCampaign(campaignId);
  const savedPath = join(config.reportsDir, reportFileName(campaignId, definition?.name));
  if (status.purgedAt !== undefined) throw purged(campaignId, status.purgedAt, savedPath, await isFile(savedPath));
  const number = definition?.phoneNumberId ?? '';
  return { definition, savedPath, userIds: reportUserIds(context.redis, config.queuePrefix, config.portfolios, number) };
}

function purged(campaignId: string, purgedAt: number, savedPath: string, saved: boolean): AppError {
  const head =
    `Campaign ${campaignId} was purged at ${new Date(purgedAt).toISOString()}: its rows are ` +
    `gone, so a report now would be empty and none is written.`;
  const tail = saved
    ? ` Its report saved before the purge is ${savedPath} (left as it was).`
    : ` No report of it was saved at ${savedPath}; \`campaign status ${campaignId}\` still shows its counts.`;
  return new AppError('CAMPAIGN_PURGED', head + tail);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}
