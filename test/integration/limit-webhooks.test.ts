import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessagingLimit } from '../../src/config/number-settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { limitWebhookHandler } from '../../src/portfolios/limit-webhooks.js';
import { DEFAULT_PORTFOLIO } from '../../src/portfolios/portfolios.js';
import { portfolioLimitKeys } from '../../src/redis/pacer/portfolio-limit-keys.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * Which portfolio a messaging-limit webhook is for (src/portfolios/limit-webhooks.ts), on a
 * real Redis: the webhooks name a WhatsApp Business Account, not a portfolio. With one
 * portfolio in use its value is stored as it is; with several, each portfolio's limit is read
 * again from the API on one of its numbers; one MESSAGING_LIMITS names is left alone.
 */
const A = '106540352242922';
const B = '106540352242923';
const C = '106540352242924';

describe('messaging-limit webhooks: the portfolio they are for', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  /** The API's answers by number, and the numbers it was asked about (the Cloud API's side, not Redis). */
  let answers: Map<string, MessagingLimit>;
  let asked: string[];

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('limit-webhooks');
    ledger = new RedisLedger(redis, prefix);
    answers = new Map();
    asked = [];
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** A campaign on each number: the deployment has sent from them. */
  async function numbers(...ids: string[]): Promise<void> {
    for (const id of ids) await ledger.createCampaign({ ...ledgerTestDefinition(`c-${id}`), phoneNumberId: id });
  }
  const handler = (portfolios: [string, string][], fixed: [string, MessagingLimit][] = []) =>
    limitWebhookHandler({
      redis,
      prefix,
      portfolios: new Map(portfolios),
      fixed: new Map(fixed),
      ledger,
      fetch: (phoneNumberId) => {
        asked.push(phoneNumberId);
        const limit = answers.get(phoneNumberId);
        return limit === undefined ? Promise.reject(new Error('no answer')) : Promise.resolve(limit);
      },
      logger: silentLogger(),
    });
  const stored = (portfolio: string) => redis.get(portfolioLimitKeys(prefix, portfolio).limit);

  it('one portfolio in use: the value of business_capability_update is stored for it, without asking the API', async () => {
    await numbers(A, B);
    await handler([])([{ field: 'business_capability_update', accountId: 'w', limit: 10_000 }]);
    expect(await stored(DEFAULT_PORTFOLIO)).toBe('10000');
    expect(asked).toEqual([]);
  });

  it('several portfolios in use: each is read again on its first number; a number named by the webhook decides', async () => {
    await numbers(A, B, C);
    answers.set(A, 2000).set(C, 'unlimited');
    const portfolios: [string, string][] = [[C, 'support']];
    await handler(portfolios)([{ field: 'business_capability_update', accountId: 'w', limit: 250 }]);
    expect(asked.sort()).toEqual([A, C]);
    expect(await stored(DEFAULT_PORTFOLIO)).toBe('2000');
    expect(await stored('support')).toBe('unlimited');

    await handler(portfolios)([{ field: 'business_capability_update', accountId: 'w', limit: 100_000, phoneNumberId: C }]);
    expect(await stored('support')).toBe('100000');
    expect(await stored(DEFAULT_PORTFOLIO)).toBe('2000');
  });

  it('account_update reads every portfolio again except one MESSAGING_LIMITS names; an API failure keeps the last limit', async () => {
    await numbers(A, C);
    await ledger.recordMessagingLimit(DEFAULT_PORTFOLIO, 250);
    answers.set(C, 10_000);
    await handler([[C, 'support']], [['support', 2000]])([{ field: 'account_update', accountId: 'w' }]);
    // support is fixed: not asked. default's number A has no answer: its 250 stays.
    expect(asked).toEqual([A]);
    expect(await stored(DEFAULT_PORTFOLIO)).toBe('250');
    expect(await stored('support')).toBeNull();
  });
});
