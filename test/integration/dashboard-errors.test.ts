import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * Errors by code (the ledger's errorCodes) on a real Redis: the campaign's rows read a page
 * at a time, counted by status and code, stopping at a cap on large campaigns.
 */
const ROWS = 5000;

function rowOf(n: number): IngestedRow {
  if (n % 10 === 1)
    return {
      row: n,
      phone: `+4915100${String(n).padStart(5, '0')}`,
      status: 'rejected',
      errorCode: 'PHONE_INVALID',
      errorDetail: `row ${n}: not a phone number`,
    };
  if (n % 50 === 2)
    return {
      row: n,
      phone: `+4915100${String(n).padStart(5, '0')}`,
      status: 'skipped',
      errorCode: 'OPTED_OUT',
      errorDetail: 'the recipient opted out',
    };
  return queuedRow(n);
}

describe('the ledger’s errors by code', () => {
  const prefix = freshPrefix('dashboard-errors');
  let redis: Redis;
  let ledger: RedisLedger;
  const id = 'dash-errors';

  beforeAll(async () => {
    redis = testRedis();
    ledger = new RedisLedger(redis, prefix);
    await ledger.createCampaign(ledgerTestDefinition(id));
    for (let from = 1; from <= ROWS; from += 1000) {
      await ledger.recordIngested(
        id,
        LEDGER_TEST_NUMBER,
        Array.from({ length: 1000 }, (_, i) => rowOf(from + i)),
      );
    }
    await ledger.finishIngest(id);
  });

  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('counts every row by status and code when the campaign is under the cap', async () => {
    const tally = await ledger.errorCodes(id);
    expect(tally.complete).toBe(true);
    expect(tally.scanned).toBe(ROWS);
    expect(tally.codes).toEqual([
      {
        status: 'rejected',
        code: 'PHONE_INVALID',
        rows: ROWS / 10,
        example: expect.stringMatching(/^row \d+: not a phone number$/) as unknown,
      },
      { status: 'skipped', code: 'OPTED_OUT', rows: ROWS / 50, example: 'the recipient opted out' },
    ]);
  });

  it('stops at the cap and says the counts are a sample', async () => {
    const tally = await ledger.errorCodes(id, 1500);
    expect(tally.complete).toBe(false);
    expect(tally.scanned).toBeGreaterThanOrEqual(1500);
    expect(tally.scanned).toBeLessThan(ROWS);
    const rejected = tally.codes.find((c) => c.code === 'PHONE_INVALID')?.rows ?? 0;
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThan(ROWS / 10);
  });

  it('a campaign that is not there counts nothing', async () => {
    expect(await ledger.errorCodes('none')).toMatchObject({ codes: [], scanned: 0, complete: true });
  });
});
