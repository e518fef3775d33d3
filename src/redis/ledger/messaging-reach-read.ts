import { messagingLimitText, type MessagingLimit } from '../../config/number-settings.js';
import { REACH_WINDOW_MS } from '../../campaigns/send/messaging-reach.js';
import { portfolioOf, type PortfolioAssignments } from '../../portfolios/portfolios.js';
import { numbersOfPortfolio } from '../pacer/portfolio-keys.js';
import { portfolioLimitKeys } from '../pacer/portfolio-limit-keys.js';
import type { RedisClient } from '../key-scope.js';
import { campaignLedgerKeys, feedKeys, laneBacklogKey } from './ledger-keys.js';

/**
 * For `campaign send`'s plan: the messaging limit of the number's portfolio as a worker or
 * webhook last stored it, who the portfolio reached in the last 24 h (reach-commit.lua's set),
 * by Redis's clock, and the rows still in the backlogs of the portfolio's other campaigns
 * (each may need a place of its own: at most that many).
 */
export async function readMessagingReach(
  redis: RedisClient,
  prefix: string,
  portfolios: PortfolioAssignments,
  phoneNumberId: string,
  campaignId: string,
): Promise<{
  portfolio: string;
  storedLimit: MessagingLimit | undefined;
  reached: number;
  queuedElsewhere: number;
  oldestReachedAt: number | undefined;
  now: number;
}> {
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const since = now - REACH_WINDOW_MS;
  const portfolio = portfolioOf(portfolios, phoneNumberId);
  const keys = portfolioLimitKeys(prefix, portfolio);
  const numbers = await numbersOfPortfolio(redis, prefix, portfolios, portfolio);
  const [stored, reached, oldest, queued] = await Promise.all([
    redis.get(keys.limit),
    redis.zcount(keys.reach, `(${since}`, '+inf'),
    redis.zrangebyscore(keys.reach, `(${since}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
    Promise.all(numbers.map((number) => backlogOf(redis, prefix, number, campaignId))),
  ]);
  return {
    portfolio,
    storedLimit: stored === null ? undefined : messagingLimitText(stored),
    reached,
    queuedElsewhere: queued.reduce((a, b) => a + b, 0),
    oldestReachedAt: oldest[1] === undefined ? undefined : Number(oldest[1]),
    now,
  };
}

/** Rows in the backlogs (send-window lanes included) of a number's campaigns that may still feed, but `except`. */
async function backlogOf(redis: RedisClient, prefix: string, phoneNumberId: string, except: string): Promise<number> {
  const ids = (await redis.zrange(feedKeys(prefix, phoneNumberId).active, 0, -1)).filter((id) => id !== except);
  if (ids.length === 0) return 0;
  // One number's keys share its slot: one pipeline each, even on a cluster.
  const heads = redis.pipeline();
  for (const id of ids) {
    const keys = campaignLedgerKeys(prefix, phoneNumberId, id);
    heads.llen(keys.pending).hlen(keys.lanes).hget(keys.campaign, 'cancelled');
  }
  const answers = ((await heads.exec()) ?? []).map(([, value]) => value);
  const lanes = redis.pipeline();
  let rows = 0;
  ids.forEach((id, i) => {
    if (answers[3 * i + 2] === '1') return;
    rows += Number(answers[3 * i] ?? 0);
    const { pending } = campaignLedgerKeys(prefix, phoneNumberId, id);
    for (let lane = 0; lane < Number(answers[3 * i + 1] ?? 0); lane++) lanes.llen(laneBacklogKey(pending, lane));
  });
  for (const [, value] of (await lanes.exec()) ?? []) rows += Number(value ?? 0);
  return rows;
}
