import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import { LedgerContext } from '../../src/redis/ledger/ledger-context.js';
import { LedgerIngest } from '../../src/redis/ledger/ledger-ingest.js';
import { LedgerOptOuts } from '../../src/redis/ledger/ledger-optouts.js';
import { LedgerSend } from '../../src/redis/ledger/ledger-send.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * REDIS_WAIT_REPLICAS on a Redis that keeps failing over: every wait ran on another connection
 * than the write it was to vouch for. The ledger writes (or claims) again a few times, then gives
 * up with REDIS_UNAVAILABLE (the operator's "retry once Redis is stable"), not with an untyped
 * error that reads as a bug of ours.
 */
class AlwaysReconnected extends LedgerContext {
  override replicated(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/** Only the campaign's own hash: its wait always ran elsewhere (the indexes before it wait as usual). */
class HashAlwaysReconnected extends LedgerContext {
  override replicated(key: string, writtenOn?: number): Promise<boolean> {
    return key.endsWith(':campaign:unstable') ? Promise.resolve(false) : super.replicated(key, writtenOn);
  }
}

describe('writes that must reach the replicas, on a connection that changes under each of them', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  const context = () => {
    const prefix = freshPrefix('replica-unstable');
    prefixes.push(prefix);
    return new AlwaysReconnected(redis, prefix, { waitReplicas: 1 });
  };

  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    await redis.quit();
  });

  it("a new campaign's index entry: REDIS_UNAVAILABLE", async () => {
    const failure = await new LedgerIngest(context()).createCampaign(ledgerTestDefinition('unstable')).catch((e: unknown) => e);
    expect(isAppError(failure, 'REDIS_UNAVAILABLE'), String(failure)).toBe(true);
  });

  it("a new campaign's own hash: REDIS_UNAVAILABLE", async () => {
    const prefix = freshPrefix('replica-unstable');
    prefixes.push(prefix);
    const failure = await new LedgerIngest(new HashAlwaysReconnected(redis, prefix, { waitReplicas: 1 }))
      .createCampaign(ledgerTestDefinition('unstable'))
      .catch((e: unknown) => e);
    expect(isAppError(failure, 'REDIS_UNAVAILABLE'), String(failure)).toBe(true);
    expect(String(failure)).toContain("campaign's hash");
  });

  it('a chunk of ingested rows: REDIS_UNAVAILABLE', async () => {
    const unstable = context();
    await new RedisLedger(redis, unstable.prefix).createCampaign(ledgerTestDefinition('unstable'));
    const failure = await new LedgerIngest(unstable)
      .recordIngested('unstable', LEDGER_TEST_NUMBER, [queuedRow(1)])
      .catch((e: unknown) => e);
    expect(isAppError(failure, 'REDIS_UNAVAILABLE'), String(failure)).toBe(true);
  });

  it("a row's claim: REDIS_UNAVAILABLE", async () => {
    const failure = await new LedgerSend(context()).claim({ campaignId: 'unstable', row: 1 }, LEDGER_TEST_NUMBER).catch((e: unknown) => e);
    expect(isAppError(failure, 'REDIS_UNAVAILABLE'), String(failure)).toBe(true);
  });

  it('an opt-out: REDIS_UNAVAILABLE', async () => {
    const failure = await new LedgerOptOuts(context()).addOptOut(LEDGER_TEST_NUMBER, '+4915110000001').catch((e: unknown) => e);
    expect(isAppError(failure, 'REDIS_UNAVAILABLE'), String(failure)).toBe(true);
  });
});
