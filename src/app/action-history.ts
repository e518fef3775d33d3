import type { CampaignActor, CampaignAction, CampaignHistory } from '../campaigns/history/campaign-history.js';
import { RedisCampaignHistory } from '../redis/history/redis-campaign-history.js';
import type { AppContext } from './app-context.js';

/** Where an action is recorded, and who hears of a record that failed. */
export interface ActionHistory {
  history: Pick<CampaignHistory, 'record'>;
  logger: { warn(fields: Record<string, unknown>, message: string): void };
  /** The entry's time (ms); Date.now unless the edge keeps a clock of its own. */
  now?: (() => number) | undefined;
}

/**
 * The history under this QUEUE_PREFIX, for a context that has Redis. Its logger is reached only
 * for a warning: a CLI command that never warns never loads pino (start-up time).
 */
export function actionHistoryOf(context: Pick<AppContext, 'redis' | 'config' | 'logger'>): ActionHistory {
  return {
    history: new RedisCampaignHistory(context.redis, context.config.queuePrefix),
    logger: { warn: (fields, message) => context.logger.warn(fields, message) },
  };
}

/**
 * Adds an action that worked to the campaign's history. The action stands whatever happens
 * here: a failed write is a warning, never the caller's failure.
 */
export async function recordAction(
  target: ActionHistory,
  actor: CampaignActor,
  campaignId: string,
  action: CampaignAction,
  detail?: string,
): Promise<void> {
  const at = (target.now ?? Date.now)();
  try {
    await target.history.record(campaignId, { at, actor, action, ...(detail === undefined ? {} : { detail }) });
  } catch (error) {
    target.logger.warn({ err: error, campaignId, action }, 'campaign history not recorded (the action itself worked)');
  }
}
