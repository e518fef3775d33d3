import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedResult, IngestedRow } from '../../src/campaigns/ledger.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { RedisLedger, campaignLedgerKeys } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/**
 * Send-window lanes in the ledger (real Redis, the ledger's clock set by the test, and the open lanes given to feed
 * as the feeder works them out): rows of closed lanes wait without taking room, rows that go
 * back to the backlog (parked, retried) go back to their own lane, and cancel and expiry end
 * every lane as a block.
 */
const NUMBER = LEDGER_TEST_NUMBER;
const T0 = Date.parse('2026-12-01T08:00:00Z');
const WINDOW = parseSendWindow('09:00-20:00', undefined, CLI_FIELD_NAMES);
const LANES = [['Europe/Berlin'], ['America/New_York'], ['Asia/Tokyo']];

describe('send-window lanes in the ledger (real Redis, a clock the test moves)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let clock: TestClock;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-lanes');
    clock = TestClock.stopped(T0);
    ledger = new RedisLedger(redis, prefix, { clock });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** Rows 1..n in lane (row - 1) % 3: Berlin, New York, Tokyo, Berlin, … */
  async function windowed(id: string, rows: number, extra: { expiresAt?: number } = {}): Promise<void> {
    await ledger.createCampaign({ ...ledgerTestDefinition(id), window: WINDOW, ...extra });
    await ledger.recordLanes(
      id,
      LANES.map((zones, index) => ({ index, zones })),
    );
    const laned: IngestedRow[] = Array.from({ length: rows }, (_, i) => ({
      ...(queuedRow(i + 1) as Extract<IngestedRow, { status: 'queued' }>),
      lane: i % 3,
    }));
    await ledger.recordIngested(id, NUMBER, laned);
    await ledger.finishIngest(id);
  }

  /** A feed at `at` on the ledger's clock (the clock stays there), with these lanes open. */
  const feedAt = (at: number, open: Record<string, number[]>, windowSize = 100): Promise<FeedResult> => {
    clock.set(at);
    return ledger.feed(NUMBER, {
      windowSize,
      minBatch: 1,
      refreshAfterMs: 3_600_000,
      refreshMost: 0,
      openLanes: new Map(Object.entries(open)),
    });
  };

  it('feeds only the open lanes; closed lanes wait and take no room; the campaign stays active until they are fed', async () => {
    await windowed('w', 9);
    expect(await ledger.lanes('w')).toEqual(LANES);
    const berlin = await feedAt(T0, { w: [0] });
    expect(berlin.jobs.map((j) => j.row)).toEqual([1, 4, 7]);
    expect(await ledger.windowSize(NUMBER)).toBe(3);
    // No lane open: nothing fed, and the campaign is not dropped from its number's feed.
    expect((await feedAt(T0 + 1, { w: [] })).jobs).toEqual([]);
    expect((await feedAt(T0 + 2, {})).jobs).toEqual([]);
    expect(await ledger.windowedCampaigns(NUMBER)).toMatchObject({ campaigns: [{ campaignId: 'w', window: WINDOW, lanes: LANES }] });
    expect(await ledger.laneBacklogs('w')).toEqual([
      { lane: 0, zones: ['Europe/Berlin'], pending: 0 },
      { lane: 1, zones: ['America/New_York'], pending: 3 },
      { lane: 2, zones: ['Asia/Tokyo'], pending: 3 },
    ]);
    // Two lanes open: the room is shared between them.
    const both = await feedAt(T0 + 3, { w: [1, 2] }, 7);
    expect(both.jobs.map((j) => j.row).sort((a, b) => a - b)).toEqual([2, 3, 5, 6]);
  });

  it('a parked row goes back to the front of its own lane, and a retried one to the end of it', async () => {
    await windowed('p', 6);
    const fed = await feedAt(T0, { p: [1] });
    expect(fed.jobs.map((j) => j.row)).toEqual([2, 5]);
    await ledger.pause('p', 'operator');
    expect(await ledger.claim(fed.jobs[0] ?? { campaignId: 'p', row: 0 })).toEqual({ outcome: 'parked' });
    await ledger.resume('p');
    expect((await ledger.laneBacklogs('p')).map((l) => l.pending)).toEqual([2, 1, 2]);
    const again = await feedAt(T0 + 1, { p: [1] });
    expect(again.jobs).toEqual([{ campaignId: 'p', row: 2, requeue: 1 }]);

    const claimed = await ledger.claim(fed.jobs[1] ?? { campaignId: 'p', row: 0 });
    expect(claimed.outcome).toBe('claimed');
    await ledger.settle(fed.jobs[1] ?? { campaignId: 'p', row: 0 }, { status: 'failed', errorCode: '131000', errorDetail: 'x' });
    expect(await ledger.markForRetry('p', 1, 6, { codes: [], failed: true, unknown: false })).toEqual({
      requeued: 1,
      noPayload: 0,
      held: 0,
      heldUntil: 0,
      usMarketing: 0,
      optedOut: 0,
      experiment: 0,
    });
    expect((await ledger.laneBacklogs('p')).map((l) => l.pending)).toEqual([2, 1, 2]);
    expect((await feedAt(T0 + 2, { p: [1] })).jobs).toEqual([{ campaignId: 'p', row: 5, requeue: 1 }]);
  });

  it('cancel ends every lane as a block', async () => {
    await windowed('c', 9);
    await feedAt(T0, { c: [0] });
    expect(await ledger.cancel('c')).toEqual({ outcome: 'cancelled', cancelled: 6 });
    expect((await ledger.laneBacklogs('c')).map((l) => l.pending)).toEqual([0, 0, 0]);
    const { pending } = campaignLedgerKeys(prefix, NUMBER, 'c');
    expect(await redis.exists(`${pending}:1`, `${pending}:2`)).toBe(0);
    expect((await ledger.status('c'))?.counts).toMatchObject({ queued: 3, cancelled: 6 });
  });

  it('expiry ends the waiting lanes: their rows become expired, never sent', async () => {
    await windowed('e', 6, { expiresAt: T0 + 60_000 });
    await feedAt(T0, { e: [2] });
    const expired = await feedAt(T0 + 60_000, { e: [0, 1, 2] });
    expect(expired.jobs).toEqual([]);
    expect(expired.events).toContainEqual({ kind: 'expired', campaignId: 'e', rows: 4 });
    expect((await ledger.status('e'))?.counts).toMatchObject({ expired: 4, queued: 2 });
  });
});
