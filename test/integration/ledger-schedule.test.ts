import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { FeedResult } from '../../src/campaigns/ledger.js';
import { RedisLedger, campaignLedgerKeys } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';

/**
 * Start times, start deadlines and expiry as the feed script applies them (real Redis, the
 * ledger's clock stopped and moved by the test): nothing is fed before the start, a campaign not started by its
 * deadline is cancelled with that reason, and at expiry the rows not sent become `expired`.
 */
const NUMBER = LEDGER_TEST_NUMBER;
const T0 = Date.parse('2026-12-01T08:00:00Z');
const MINUTE = 60_000;

describe('scheduled campaigns in the ledger (real Redis, a clock the test moves)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let clock: TestClock;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-schedule');
    clock = TestClock.stopped(T0 - MINUTE);
    ledger = new RedisLedger(redis, prefix, { clock });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function campaign(
    id: string,
    rows: number,
    schedule: Pick<CampaignDefinition, 'startsAt' | 'startDeadline' | 'expiresAt'>,
  ): Promise<void> {
    await ledger.createCampaign({ ...ledgerTestDefinition(id), ...schedule });
    await ledger.recordIngested(
      id,
      NUMBER,
      Array.from({ length: rows }, (_, i) => queuedRow(i + 1)),
    );
    await ledger.finishIngest(id);
  }

  /** A feed at `at` on the ledger's clock (the clock stays there). */
  const feedAt = (at: number): Promise<FeedResult> => {
    clock.set(at);
    return ledger.feed(NUMBER, { windowSize: 100, minBatch: 1, refreshAfterMs: 3_600_000, refreshMost: 0 });
  };

  it('nothing is fed before the start; at the start the rows are fed and the start is reported once', async () => {
    await campaign('later', 3, { startsAt: T0 });
    expect(await feedAt(T0 - 1)).toMatchObject({ jobs: [], events: [] });
    const first = await feedAt(T0);
    expect(first.jobs.map((j) => j.row)).toEqual([1, 2, 3]);
    expect(first.events).toEqual([{ kind: 'started', campaignId: 'later', startsAt: T0, at: T0 }]);
    expect((await ledger.status('later'))?.startedAt).toBe(T0);
    await campaign('more', 1, {});
    expect((await feedAt(T0 + 1)).events).toEqual([{ kind: 'started', campaignId: 'more', startsAt: undefined, at: T0 + 1 }]);
  });

  it('a start that passed while nothing fed is fed late, and the event carries both times (the worker logs how late)', async () => {
    await campaign('missed', 2, { startsAt: T0 });
    const late = await feedAt(T0 + 90 * MINUTE);
    expect(late.jobs).toHaveLength(2);
    expect(late.events).toEqual([{ kind: 'started', campaignId: 'missed', startsAt: T0, at: T0 + 90 * MINUTE }]);
  });

  it('not started by its deadline: cancelled with that reason, every row cancelled, the campaign finished', async () => {
    await campaign('deadline', 4, { startsAt: T0, startDeadline: T0 + 10 * MINUTE });
    expect((await feedAt(T0 + 10 * MINUTE + 1)).events).toEqual([
      { kind: 'deadline', campaignId: 'deadline', rows: 4 },
      { kind: 'completed', campaignId: 'deadline' },
    ]);
    const status = await ledger.status('deadline');
    expect(status).toMatchObject({
      state: 'cancelled',
      cancelReason: expect.stringMatching(/^START_DEADLINE: not started by /) as unknown,
    });
    expect(status?.counts).toMatchObject({ total: 4, queued: 0, cancelled: 4 });
    expect(status?.finishedAt).toBe(T0 + 10 * MINUTE + 1);
    expect(await redis.exists(campaignLedgerKeys(prefix, NUMBER, 'deadline').pending)).toBe(0);
    // Started in time, a deadline no longer applies.
    await campaign('in-time', 2, { startsAt: T0, startDeadline: T0 + 10 * MINUTE });
    await ledger.pause('in-time', 'x');
    await ledger.resume('in-time');
    expect((await feedAt(T0 + MINUTE)).jobs).toHaveLength(2);
    expect((await feedAt(T0 + 20 * MINUTE)).events).toEqual([]);
    expect((await ledger.status('in-time'))?.state).not.toBe('cancelled');
  });

  it('at expiry the rows not fed become expired as a block; rows fed before expire at their claim; the campaign completes', async () => {
    await campaign('sale', 5, { expiresAt: T0 + 60 * MINUTE });
    clock.set(T0);
    const fed = await ledger.feed(NUMBER, { windowSize: 2, minBatch: 1, refreshAfterMs: 3_600_000, refreshMost: 0 });
    expect(fed.jobs.map((j) => j.row)).toEqual([1, 2]);
    await ledger.claim(fed.jobs[0] ?? { campaignId: 'sale', row: 1 }, NUMBER);
    await ledger.settle({ campaignId: 'sale', row: 1 }, { status: 'sent', wamid: 'w1' }, NUMBER);

    expect((await feedAt(T0 + 60 * MINUTE)).events).toEqual([{ kind: 'expired', campaignId: 'sale', rows: 3 }]);
    expect((await ledger.status('sale'))?.counts).toMatchObject({ queued: 1, sent: 1, expired: 3 });
    // Row 2 was fed before the expiry; its claim (on the ledger's clock, past the expiry) finds the campaign expired.
    // Its last open row: the claim says it completed the campaign (the worker announces it).
    expect(await ledger.claim({ campaignId: 'sale', row: 2 }, NUMBER)).toEqual({
      outcome: 'settled',
      status: 'expired',
      completedCampaign: true,
    });
    const status = await ledger.status('sale');
    expect(status?.state).toBe('completed');
    expect(status?.counts).toMatchObject({ total: 5, queued: 0, sent: 1, expired: 4 });
    const rows = [];
    for await (const page of ledger.rows('sale')) rows.push(...page);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'expired', 'expired', 'expired', 'expired']);
    expect(await ledger.windowSize(NUMBER)).toBe(0);
  });

  it('rows read into a campaign after it expired are expired, not queued', async () => {
    await campaign('gone', 1, { expiresAt: T0 });
    await feedAt(T0);
    await ledger.recordIngested('gone', NUMBER, [queuedRow(2)]);
    expect((await ledger.status('gone'))?.counts).toMatchObject({ total: 2, queued: 0, expired: 2 });
  });

  it('reschedule moves a start that has not come; refused once it started, and for a cancelled campaign', async () => {
    await campaign('moved', 1, { startsAt: T0 });
    expect(await ledger.reschedule('moved', T0 + 60 * MINUTE)).toEqual({ outcome: 'rescheduled' });
    expect((await feedAt(T0 + MINUTE)).jobs).toEqual([]);
    expect((await ledger.status('moved'))?.startsAt).toBe(T0 + 60 * MINUTE);
    expect((await feedAt(T0 + 60 * MINUTE)).jobs).toHaveLength(1);
    expect(await ledger.reschedule('moved', T0 + 120 * MINUTE)).toEqual({ outcome: 'started' });
    await campaign('dropped', 1, { startsAt: T0 + 60 * MINUTE });
    await ledger.cancel('dropped');
    expect(await ledger.reschedule('dropped', T0)).toEqual({ outcome: 'cancelled' });
    expect(await ledger.reschedule('nope', T0)).toEqual({ outcome: 'missing' });
  });

  it("status says scheduled until the start (the ledger's clock), and cancel before the start cancels every row", async () => {
    await campaign('soon', 3, { startsAt: T0 + 3_600_000 });
    expect((await ledger.status('soon'))?.state).toBe('scheduled');
    clock.set(T0 + 3_600_000);
    expect((await ledger.status('soon'))?.state).toBe('running');
    clock.set(T0);
    expect(await ledger.cancel('soon')).toEqual({ outcome: 'cancelled', cancelled: 3 });
    expect(await ledger.status('soon')).toMatchObject({
      state: 'cancelled',
      counts: expect.objectContaining({ cancelled: 3, queued: 0 }) as unknown,
    });
    expect((await ledger.status('soon'))?.finishedAt).toBeDefined();
  });
});
