import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerContext } from '../../src/redis/ledger/ledger-context.js';
import { LedgerIngest } from '../../src/redis/ledger/ledger-ingest.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ledgerTestDefinition } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * REDIS_WAIT_REPLICAS and a new campaign's own hash: a campaign with no rows yet has no chunk
 * whose wait would cover it. Its first wait here runs on another connection, as after a
 * failover, and the hash is gone from the node reached, as from a promoted replica that never
 * got it: the hash is written again there, so the campaign is found.
 */
class LosesTheHashOnce extends LedgerContext {
  readonly asked: string[] = [];
  #lost = false;

  override async replicated(key: string, writtenOn?: number): Promise<boolean> {
    this.asked.push(key);
    if (this.#lost || !key.endsWith(':campaign:lost')) return super.replicated(key, writtenOn);
    this.#lost = true;
    await this.redis.del(key);
    return false;
  }
}

describe("a new campaign's hash whose replica wait ran on another connection", () => {
  let redis: Redis;
  const prefix = freshPrefix('campaign-hash-wait');

  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('is written again where it was lost: the campaign is found, with its definition, creation time and priority', async () => {
    // No replica here: with none connected, a wait only checks that it would run on the write's connection.
    const context = new LosesTheHashOnce(redis, prefix, { waitReplicas: 1 });
    const definition = ledgerTestDefinition('lost');
    await new LedgerIngest(context).createCampaign(definition);
    expect(context.asked.filter((key) => key.endsWith(':campaign:lost'))).toHaveLength(2);
    expect((await new RedisLedger(redis, prefix).getCampaign('lost'))?.id).toBe('lost');
    const [createdAt, priority] = await redis.hmget((await context.keys('lost')).campaign, 'createdAt', 'priority');
    expect([createdAt, priority]).toEqual([String(definition.createdAt), '1']);
  });
});
