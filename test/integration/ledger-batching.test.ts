import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { ledgerPeek } from '../support/ledger-peek.js';

/**
 * Claims and answers made in the same event-loop turn reach Redis as one script call per
 * campaign (src/redis/ledger/tick-batch.ts). These tests make many at once, on a real Redis, and
 * check that each caller still gets exactly what a call of its own would have given it.
 * The spies only count the real script calls; they do not replace them.
 */

function job(id: string, row: number, requeue?: number): SendJob {
  const base: SendJob = { campaignId: id, row };
  return requeue === undefined ? base : { ...base, requeue };
}

/** A campaign of `rows` queued rows, ingest finished, every row fed (in production a row is fed before it is claimed). */
async function fedCampaign(ledger: RedisLedger, id: string, rows: number): Promise<void> {
  await ingestQueuedCampaign(ledger, id, rows);
  await feedAll(ledger);
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('RedisLedger: claims and answers of one turn go as one call (real Redis)', () => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-batch');
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** Counts the ledger's claim and settle script calls (the real ones still run). */
  function scriptCalls() {
    const commands = redis as unknown as Record<'cwClaim' | 'cwSettle', (...args: unknown[]) => Promise<unknown>>;
    return { claim: vi.spyOn(commands, 'cwClaim'), settle: vi.spyOn(commands, 'cwSettle') };
  }

  it('50 claims at once: one call; each caller gets its own outcome (claimed, settled, stale, a missing row rejects alone)', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await fedCampaign(ledger, 'b1', 60);
    await ledger.claim(job('b1', 51), '106540352242922');
    await ledger.settle(job('b1', 51), { status: 'sent', wamid: 'wamid.51' });
    const calls = scriptCalls();

    const results = await Promise.allSettled([
      ...range(1, 50).map((row) => ledger.claim(job('b1', row), '106540352242922')),
      ledger.claim(job('b1', 51), '106540352242922'),
      ledger.claim(job('b1', 52, 3), '106540352242922'),
      ledger.claim(job('b1', 99), '106540352242922'),
    ]);

    expect(calls.claim).toHaveBeenCalledTimes(1);
    for (const result of results.slice(0, 50))
      expect(result).toMatchObject({ status: 'fulfilled', value: { outcome: 'claimed', attempt: 1 } });
    expect(results[50]).toEqual({ status: 'fulfilled', value: { outcome: 'settled', status: 'sent' } });
    expect(results[51]).toEqual({ status: 'fulfilled', value: { outcome: 'stale' } });
    expect(results[52]?.status).toBe('rejected');
    expect(String((results[52] as PromiseRejectedResult).reason)).toMatch(/no row 99/);
    expect((await ledger.status('b1'))?.counts).toMatchObject({ queued: 9, sending: 50, sent: 1 });
    // The claimed jobs still run and the unclaimed ones wait: only the settled row's job left the window.
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(59);
  });

  it('the last 40 answers at once: one call, every row recorded, exactly one caller told it completed the campaign', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await fedCampaign(ledger, 'b2', 40);
    await Promise.all(range(1, 40).map((row) => ledger.claim(job('b2', row), '106540352242922')));
    const calls = scriptCalls();

    const answers = await Promise.all(
      range(1, 40).map((row) =>
        row % 10 === 0
          ? ledger.settle(job('b2', row), { status: 'failed', errorCode: '131026', errorDetail: 'Message undeliverable' })
          : ledger.settle(job('b2', row), { status: 'sent', wamid: `wamid.${row}` }),
      ),
    );

    expect(calls.settle).toHaveBeenCalledTimes(1);
    expect(answers.filter((a) => a.completedCampaign)).toHaveLength(1);
    expect(answers.map((a) => a.status)).toEqual(range(1, 40).map((row) => (row % 10 === 0 ? 'failed' : 'sent')));
    const status = await ledger.status('b2');
    expect(status?.state).toBe('completed');
    expect(status?.counts).toMatchObject({ total: 40, sent: 36, failed: 4, sending: 0 });
    expect(await ledgerPeek(redis, prefix).wamidCount()).toBe(36);
    // Every answer was final: every job's ID left the number's window in the same call.
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(0);
  });

  it('a duplicate answer in the same call as the first: the first wins, the second changes nothing', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await fedCampaign(ledger, 'b3', 2);
    await ledger.claim(job('b3', 1), '106540352242922');
    const [first, second] = await Promise.all([
      ledger.settle(job('b3', 1), { status: 'sent', wamid: 'wamid.first' }),
      ledger.settle(job('b3', 1), { status: 'unknown', errorCode: 'SHUTDOWN_IN_FLIGHT', errorDetail: 'late' }),
    ]);
    expect(first).toEqual({ status: 'sent', completedCampaign: false, pausedCampaign: false });
    expect(second).toEqual({ status: 'sent', completedCampaign: false, pausedCampaign: false });
    expect((await ledger.status('b3'))?.counts).toMatchObject({ sent: 1, unknown: 0, queued: 1 });
  });

  it('the error-spike brake inside one call: the answer that tips it (3rd failure of 10) is told it paused the campaign', async () => {
    const ledger = new RedisLedger(redis, prefix, { autoPause: { window: 10, failureShare: 0.2 } });
    await fedCampaign(ledger, 'b4', 20);
    await Promise.all(range(1, 8).map((row) => ledger.claim(job('b4', row), '106540352242922')));
    const fail = { status: 'failed', errorCode: '132000', errorDetail: 'Number of parameters does not match' } as const;

    // sent, F, sent, F, F (tips: 3 of the last 10), F, sent, F
    const failing = new Set([2, 4, 5, 6, 8]);
    const answers = await Promise.all(
      range(1, 8).map((row) => ledger.settle(job('b4', row), failing.has(row) ? fail : { status: 'sent', wamid: `wamid.${row}` })),
    );

    expect(answers.map((a) => a.pausedCampaign)).toEqual([false, false, false, false, true, false, false, false]);
    const status = await ledger.status('b4');
    expect(status?.state).toBe('paused');
    expect(status?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of the last 10 sends failed permanently/);
    expect(status?.counts).toMatchObject({ sent: 3, failed: 5 });
  });

  it('two campaigns in the same turn: one call each, each with its own keys', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await fedCampaign(ledger, 'x', 3);
    await fedCampaign(ledger, 'y', 3);
    const calls = scriptCalls();
    const claims = await Promise.all(
      [1, 2, 3].flatMap((row) => [ledger.claim(job('x', row), '106540352242922'), ledger.claim(job('y', row), '106540352242922')]),
    );
    expect(claims.every((c) => c.outcome === 'claimed')).toBe(true);
    expect(calls.claim).toHaveBeenCalledTimes(2);
    const answers = await Promise.all(
      [1, 2, 3].flatMap((row) => [
        ledger.settle(job('x', row), { status: 'sent', wamid: `x.${row}` }),
        ledger.settle(job('y', row), { status: 'sent', wamid: `y.${row}` }),
      ]),
    );
    expect(calls.settle).toHaveBeenCalledTimes(2);
    expect(answers.filter((a) => a.completedCampaign)).toHaveLength(2);
    expect((await ledger.status('x'))?.state).toBe('completed');
    expect((await ledger.status('y'))?.state).toBe('completed');
    expect(await ledgerPeek(redis, prefix).wamidOwner('y.2')).toBe('y/2');
  });
});
