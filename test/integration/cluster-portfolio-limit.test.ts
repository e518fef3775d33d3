import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { portfolioLimitKeys } from '../../src/redis/pacer/portfolio-limit-keys.js';
import { DEFAULT_PORTFOLIO } from '../../src/portfolios/portfolios.js';
import { numberScope } from '../../src/redis/key-scope.js';
import { describePortfolioReach, NUMBER_A, NUMBER_B } from '../support/portfolio-reach-spec.js';
import { freshPrefix } from '../support/redis.js';
import { RedisClusterUnderTest } from '../support/redis-cluster.js';

/**
 * The portfolio's messaging limit on a real 3-master Redis Cluster: the portfolio's count has
 * a slot of its own, apart from each number's, and every step (lease, feed, commit) stays in
 * one slot (Redis refuses a script whose keys cross slots), yet the numbers never reach more
 * new recipients together than the limit.
 */
let cluster: RedisClusterUnderTest;
let client: Cluster;

beforeAll(async () => {
  cluster = await RedisClusterUnderTest.start({ masters: 3 });
  client = cluster.client();
}, 60_000);

afterAll(async () => {
  await client?.quit();
  await cluster?.stop();
});

it('the portfolio and its two numbers are on more than one master', async () => {
  const prefix = 'any';
  const masters = new Set([
    await cluster.masterOf(numberScope(prefix, NUMBER_A)),
    await cluster.masterOf(numberScope(prefix, NUMBER_B)),
    await cluster.masterOf(portfolioLimitKeys(prefix, DEFAULT_PORTFOLIO).reach),
  ]);
  expect(masters.size).toBeGreaterThan(1);
});

describePortfolioReach('the messaging limit of a portfolio (real Redis Cluster)', () =>
  Promise.resolve({ redis: client, prefix: freshPrefix('cluster-reach'), cleanup: () => Promise.resolve() }),
);
