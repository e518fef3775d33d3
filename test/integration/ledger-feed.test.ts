import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { FeedOptions, FeedResult } from '../../src/campaigns/ledger.js';
import { parseSendJobId, sendJobId, type SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger, campaignLedgerKeys, feedKeys } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';

/**
 * The feeder's atomic cursor (ledger.feed, the FEED script in src/redis/ledger/ledger-scripts.ts) on
 * a real Redis under a fresh prefix: it pops rows off the campaigns' backlogs into the phone
 * number's window, never past the window's size, never the same row twice, high priority
 * first and equal campaigns in equal shares; every end of a job takes it out of the window;
 * jobs fed long ago and not done are handed out again.
 */

const NUMBER = LEDGER_TEST_NUMBER;

function job(campaignId: string, row: number, requeue?: number): SendJob {
  return requeue === undefined ? { campaignId, row } : { campaignId, row, requeue };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('RedisLedger.feed (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let clock: TestClock;
  const extraConnections: Redis[] = [];

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-feed');
    clock = TestClock.stopped();
    ledger = new RedisLedger(redis, prefix, { clock });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await Promise.all(extraConnections.splice(0).map((c) => c.quit()));
    await redis.quit();
  });

  /** A campaign of `rows` queued rows on NUMBER, ingest finished unless told otherwise; nothing fed. */
  async function campaign(
    id: string,
    rows: number,
    options: { priority?: CampaignDefinition['priority']; finish?: boolean } = {},
  ): Promise<void> {
    const definition: CampaignDefinition = { ...ledgerTestDefinition(id) };
    if (options.priority !== undefined) definition.priority = options.priority;
    await ledger.createCampaign(definition);
    for (let from = 1; from <= rows; from += 500) {
      await ledger.recordIngested(
        id,
        NUMBER,
        range(from, Math.min(rows, from + 499)).map((n) => queuedRow(n)),
      );
    }
    if (options.finish !== false) await ledger.finishIngest(id);
  }

  const feed = async (windowSize: number, more: Partial<FeedOptions> = {}, l: RedisLedger = ledger): Promise<FeedResult> =>
    l.feed(NUMBER, { windowSize, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0, ...more });

  const windowKey = (): string => feedKeys(prefix, NUMBER).window;
  const activeKey = (): string => feedKeys(prefix, NUMBER).active;
  const windowIds = async (): Promise<string[]> => (await redis.zrange(windowKey(), 0, -1)).sort();
  const inWindow = async (j: SendJob): Promise<boolean> =>
    (await redis.zscore(windowKey(), sendJobId(j.campaignId, j.row, j.requeue ?? 0))) !== null;
  const backlog = async (id: string): Promise<string[]> => redis.lrange(campaignLedgerKeys(prefix, NUMBER, id).pending, 0, -1);

  describe('room', () => {
    it('never feeds past the window size, and nothing while the room is smaller than minBatch', async () => {
      await campaign('a', 100);
      expect((await feed(10)).jobs).toEqual(range(1, 10).map((n) => job('a', n)));
      expect(await ledger.windowSize(NUMBER)).toBe(10);
      expect(await feed(10)).toEqual({ jobs: [], refresh: [], events: [] });

      for (const n of [1, 2, 3]) {
        await ledger.claim(job('a', n), NUMBER);
        await ledger.settle(job('a', n), { status: 'sent', wamid: `w${n}` }, NUMBER);
      }
      expect(await ledger.windowSize(NUMBER)).toBe(7);
      // Room 3, minBatch 4: not worth a feed.
      expect((await feed(10, { minBatch: 4 })).jobs).toEqual([]);
      await ledger.claim(job('a', 4), NUMBER);
      await ledger.settle(job('a', 4), { status: 'sent', wamid: 'w4' }, NUMBER);
      // Room 4: fed, exactly up to the window.
      expect((await feed(10, { minBatch: 4 })).jobs).toEqual(range(11, 14).map((n) => job('a', n)));
      expect(await ledger.windowSize(NUMBER)).toBe(10);
      expect((await feed(12)).jobs).toEqual([job('a', 15), job('a', 16)]);
      expect(await ledger.windowSize(NUMBER)).toBe(12);
      expect((await backlog('a'))[0]).toBe('17');
      expect(await backlog('a')).toHaveLength(84);
    });

    it('feeds at most mostRows in one call, and the room the call left in the next, whatever minBatch was', async () => {
      await campaign('a', 100);
      // Room 10, minBatch 8: worth a feed, but this call pops only 4.
      expect((await feed(10, { minBatch: 8, mostRows: 4 })).jobs).toEqual(range(1, 4).map((n) => job('a', n)));
      expect(await ledger.windowSize(NUMBER)).toBe(4);
      // The rest of the room, 4 at a time (the feeder's next calls ask with minBatch 1).
      expect((await feed(10, { mostRows: 4 })).jobs).toEqual(range(5, 8).map((n) => job('a', n)));
      expect((await feed(10, { mostRows: 4 })).jobs).toEqual([job('a', 9), job('a', 10)]);
      expect((await feed(10, { mostRows: 4 })).jobs).toEqual([]);
      expect(await backlog('a')).toHaveLength(90);
    });

    it('20 feeds at once on 4 connections over 5,000 rows of two campaigns: each row fed exactly once, none past its window', async () => {
      await campaign('big-1', 2500);
      await campaign('big-2', 2500);
      const ledgers = [ledger];
      for (let i = 0; i < 3; i++) {
        const connection = testRedis();
        extraConnections.push(connection);
        ledgers.push(new RedisLedger(connection, prefix));
      }
      // Windows of 250, 500, … 5,000: whatever order Redis runs them in, the largest tops the window up to every row.
      const sizes = range(1, 20).map((i) => 250 * i);
      const results = await Promise.all(sizes.map((size, i) => feed(size, {}, ledgers[i % ledgers.length])));

      results.forEach((result, i) => expect(result.jobs.length).toBeLessThanOrEqual(sizes[i] ?? 0));
      const fed = results.flatMap((r) => r.jobs.map((j) => sendJobId(j.campaignId, j.row, j.requeue ?? 0)));
      expect(fed).toHaveLength(5000);
      expect(new Set(fed).size).toBe(5000);
      const every = ['big-1', 'big-2'].flatMap((id) => range(1, 2500).map((n) => sendJobId(id, n)));
      expect([...fed].sort()).toEqual([...every].sort());
      expect(await windowIds()).toEqual([...every].sort());
      expect(await backlog('big-1')).toEqual([]);
      expect(await backlog('big-2')).toEqual([]);
      expect(await feed(10_000)).toEqual({ jobs: [], refresh: [], events: [] });
    });
  });

  describe('fairness', () => {
    it(
      'priority classes are strict: normal rows are fed only when no high row waits, low only when no ' +
        'normal or high row does; a high campaign arriving later goes first',
      async () => {
        await campaign('low', 5, { priority: 'low' });
        await campaign('normal', 5);
        await campaign('high', 5, { priority: 'high' });
        expect(await redis.zrange(activeKey(), 0, -1, 'WITHSCORES')).toEqual(['high', '0', 'normal', '1', 'low', '2']);

        // Which rows a feed takes follows the classes. (Within one feed the rows of the classes are
        // interleaved, so their order in `jobs` is not checked here.)
        const first = (await feed(7)).jobs;
        expect(first.filter((j) => j.campaignId === 'high').map((j) => j.row)).toEqual([1, 2, 3, 4, 5]);
        expect(first.filter((j) => j.campaignId === 'normal').map((j) => j.row)).toEqual([1, 2]);
        expect(first.filter((j) => j.campaignId === 'low')).toEqual([]);

        // Room for 3 more: normal's last 3, still nothing for low.
        expect((await feed(10)).jobs).toEqual([job('normal', 3), job('normal', 4), job('normal', 5)]);
        // A high campaign arrives: its rows go before low's.
        await campaign('urgent', 2, { priority: 'high' });
        expect((await feed(12)).jobs).toEqual([job('urgent', 1), job('urgent', 2)]);
        expect((await feed(14)).jobs).toEqual([job('low', 1), job('low', 2)]);
      },
    );

    it('campaigns of one priority share the room equally, round-robin across feeds, their rows interleaved', async () => {
      await campaign('a', 10);
      await campaign('b', 10);
      expect((await feed(6)).jobs).toEqual([job('a', 1), job('b', 1), job('a', 2), job('b', 2), job('a', 3), job('b', 3)]);
      expect((await feed(10)).jobs).toEqual([job('a', 4), job('b', 4), job('a', 5), job('b', 5)]);
      // A third campaign joins: 6 of room, 2 each.
      await campaign('c', 10);
      expect((await feed(16)).jobs).toEqual([job('a', 6), job('b', 6), job('c', 1), job('a', 7), job('b', 7), job('c', 2)]);
    });

    it('a room smaller than the number of campaigns does not always go to the same ones: over many feeds each gets its turn', async () => {
      for (const id of ['a', 'b', 'c']) await campaign(id, 200);
      const fedTo = new Map<string, number>();
      for (let round = 0; round < 60; round++) {
        const { jobs } = await feed(2);
        for (const j of jobs) {
          fedTo.set(j.campaignId, (fedTo.get(j.campaignId) ?? 0) + 1);
          await ledger.claim(j, NUMBER);
          await ledger.settle(j, { status: 'sent', wamid: `w-${j.campaignId}-${j.row}` }, NUMBER);
        }
        // The ledger's clock decides where the round starts: it moves on between feeds.
        clock.advance(1);
      }
      expect([...fedTo.values()].reduce((sum, n) => sum + n, 0)).toBe(120);
      // Each of the three had its turns (with a fixed start one of them got none).
      for (const id of ['a', 'b', 'c']) expect(fedTo.get(id) ?? 0, id).toBeGreaterThan(10);
    });

    it('a feed that takes rows of several priorities lists the higher class first, so the queue runs them first', async () => {
      await campaign('lo', 3, { priority: 'low' });
      await campaign('hi', 3, { priority: 'high' });
      expect((await feed(6)).jobs).toEqual([job('hi', 1), job('hi', 2), job('hi', 3), job('lo', 1), job('lo', 2), job('lo', 3)]);
    });

    it('a campaign with fewer rows than its share leaves the rest of the room to the others', async () => {
      await campaign('a', 10);
      await campaign('b', 3);
      // Shares of 4: b has only 3, so a takes 5.
      expect((await feed(8)).jobs).toEqual([
        job('a', 1),
        job('b', 1),
        job('a', 2),
        job('b', 2),
        job('a', 3),
        job('b', 3),
        job('a', 4),
        job('a', 5),
      ]);
      expect(await ledger.windowSize(NUMBER)).toBe(8);
      expect(await backlog('b')).toEqual([]);
      // b is done (ingest finished, nothing left): the next feed drops it from the active set, a takes all the room.
      expect((await feed(10)).jobs).toEqual([job('a', 6), job('a', 7)]);
      expect(await redis.zrange(activeKey(), 0, -1)).toEqual(['a']);
    });

    it('paused and cancelled campaigns get nothing; the paused one is fed again once resumed', async () => {
      await campaign('paused', 3);
      await campaign('gone', 3);
      await campaign('running', 3);
      await ledger.pause('paused', 'operator');
      expect(await ledger.cancel('gone')).toEqual({ outcome: 'cancelled', cancelled: 3 });

      expect((await feed(100)).jobs).toEqual(range(1, 3).map((n) => job('running', n)));
      expect(await backlog('paused')).toEqual(['1', '2', '3']);
      expect(await redis.zscore(activeKey(), 'paused')).not.toBeNull();
      expect(await redis.zscore(activeKey(), 'gone')).toBeNull();
      expect((await feed(100)).jobs).toEqual([]);

      await ledger.resume('paused');
      expect((await feed(100)).jobs).toEqual(range(1, 3).map((n) => job('paused', n)));
    });

    it('a cancelled campaign still listed in the active set is dropped by the feed and fed nothing', async () => {
      await campaign('a', 2);
      // The feed reads the campaign's own flags, not only the active set: a cancelled campaign still
      // listed there (here the flag is set by hand, leaving its backlog) gets nothing and is dropped.
      await redis.hset(campaignLedgerKeys(prefix, NUMBER, 'a').campaign, 'cancelled', '1');
      expect((await feed(100)).jobs).toEqual([]);
      expect(await redis.zscore(activeKey(), 'a')).toBeNull();
      expect(await backlog('a')).toEqual(['1', '2']);
    });

    it('a campaign still ingesting stays in the active set while its backlog is empty; rows read later are fed', async () => {
      await campaign('a', 3, { finish: false });
      expect((await feed(100)).jobs).toHaveLength(3);
      expect((await feed(100)).jobs).toEqual([]);
      expect(await redis.zscore(activeKey(), 'a')).toBe('1');
      await ledger.recordIngested('a', NUMBER, [queuedRow(4), queuedRow(5)]);
      expect((await feed(100)).jobs).toEqual([job('a', 4), job('a', 5)]);
      await ledger.finishIngest('a');
      expect((await feed(100)).jobs).toEqual([]);
      expect(await redis.zscore(activeKey(), 'a')).toBeNull();
    });
  });

  describe('the window', () => {
    it('a parked row comes back first, under its new job number', async () => {
      await campaign('a', 5);
      expect((await feed(2)).jobs).toEqual([job('a', 1), job('a', 2)]);
      await ledger.pause('a', 'operator');
      expect(await ledger.claim(job('a', 2), NUMBER)).toEqual({ outcome: 'parked' });
      expect(await windowIds()).toEqual([sendJobId('a', 1)]);
      expect((await feed(10)).jobs).toEqual([]);
      await ledger.resume('a');
      expect((await feed(10)).jobs).toEqual([job('a', 2, 1), job('a', 3), job('a', 4), job('a', 5)]);
      expect(await windowIds()).toEqual(
        [sendJobId('a', 1), sendJobId('a', 2, 1), sendJobId('a', 3), sendJobId('a', 4), sendJobId('a', 5)].sort(),
      );
    });

    it('claim: claimed and in-doubt keep the job in the window; parked, settled, stale and missing take it out', async () => {
      await campaign('a', 6);
      await feed(100);
      expect((await ledger.claim(job('a', 1), NUMBER)).outcome).toBe('claimed');
      expect(await inWindow(job('a', 1))).toBe(true);
      expect(await ledger.claim(job('a', 1), NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await inWindow(job('a', 1))).toBe(true);

      await ledger.pause('a', 'operator');
      expect(await ledger.claim(job('a', 2), NUMBER)).toEqual({ outcome: 'parked' });
      expect(await inWindow(job('a', 2))).toBe(false);
      await ledger.resume('a');

      // A stale job (a newer one owns its row) and a job of a row the ledger lacks end too.
      const now = clock.now();
      await redis.zadd(windowKey(), now, sendJobId('a', 3, 4), now, sendJobId('a', 99));
      expect(await ledger.claim(job('a', 3, 4), NUMBER)).toEqual({ outcome: 'stale' });
      expect(await inWindow(job('a', 3, 4))).toBe(false);
      await expect(ledger.claim(job('a', 99), NUMBER)).rejects.toThrow(/no row 99/);
      expect(await inWindow(job('a', 99))).toBe(false);

      expect(await ledger.cancel('a')).toEqual({ outcome: 'cancelled', cancelled: 1 });
      expect(await ledger.claim(job('a', 4), NUMBER)).toEqual({ outcome: 'settled', status: 'cancelled' });
      expect(await inWindow(job('a', 4))).toBe(false);

      expect(await windowIds()).toEqual([sendJobId('a', 1), sendJobId('a', 3), sendJobId('a', 5), sendJobId('a', 6)]);
      expect(await ledger.windowSize(NUMBER)).toBe(4);
    });

    it('settle: queued keeps the job in the window; sent, failed, unknown and abandoned take it out, and so does a halt', async () => {
      await campaign('a', 7);
      await feed(100);
      for (const n of [1, 2, 3, 4, 6]) await ledger.claim(job('a', n), NUMBER);
      await ledger.settle(job('a', 1), { status: 'queued', errorCode: '131000', errorDetail: 'again' }, NUMBER);
      expect(await inWindow(job('a', 1))).toBe(true);
      await ledger.settle(job('a', 1), { status: 'sent', wamid: 'w1' }, NUMBER);
      await ledger.settle(job('a', 2), { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
      await ledger.settle(job('a', 3), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, NUMBER);
      await ledger.settle(job('a', 4), { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' }, NUMBER);
      // BullMQ gave up on a job that never ran its claim.
      expect(
        (await ledger.settle(job('a', 5), { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'stalled' }, NUMBER)).status,
      ).toBe('failed');
      await ledger.halt(job('a', 6), '190', 'token expired', NUMBER);
      // An answer from a job that does not own row 7 takes out only that job's ID.
      await ledger.settle(job('a', 7, 2), { status: 'sent', wamid: 'w7' }, NUMBER);

      expect(await windowIds()).toEqual([sendJobId('a', 7)]);
      expect(await ledger.windowSize(NUMBER)).toBe(1);
      expect(await backlog('a')).toEqual(['6:1']);
      expect((await ledger.status('a'))?.counts).toMatchObject({ sent: 1, failed: 2, unknown: 2, queued: 2 });
    });

    it('a job fed longer than refreshAfterMs ago and not done is handed out again, its age restarting; a done one is not', async () => {
      await campaign('a', 3);
      expect((await feed(3)).jobs).toHaveLength(3);
      await ledger.claim(job('a', 3), NUMBER);
      await ledger.settle(job('a', 3), { status: 'sent', wamid: 'w3' }, NUMBER);
      const fedAt = Number(await redis.zscore(windowKey(), sendJobId('a', 1)));
      // The window's stamps age 30 ms on the ledger's clock.
      clock.advance(30);

      const again = await feed(3, { refreshAfterMs: 25, refreshMost: 10 });
      expect(again.jobs).toEqual([]);
      expect(([...again.refresh] as SendJob[]).sort((x, y) => x.row - y.row)).toEqual([job('a', 1), job('a', 2)]);
      // Handed out again now: stamped now, so it ages from here (the next test checks it is not handed out at once).
      expect(Number(await redis.zscore(windowKey(), sendJobId('a', 1)))).toBeGreaterThanOrEqual(fedAt + 30);
      expect(await ledger.windowSize(NUMBER)).toBe(2);
    });

    it('refresh hands out the oldest first, at most refreshMost per feed, also when the window is full', async () => {
      await campaign('a', 4);
      await feed(4);
      const now = clock.now();
      // Stamps as if fed long ago (row 4's job under its job number 2, as after a park and a resume).
      await redis.zrem(windowKey(), sendJobId('a', 4));
      await redis.zadd(windowKey(), now - 100_000, sendJobId('a', 2), now - 90_000, sendJobId('a', 4, 2), now - 80_000, sendJobId('a', 1));

      expect(await feed(4, { refreshMost: 1 })).toEqual({ jobs: [], refresh: [job('a', 2)], events: [] });
      expect(await feed(4, { refreshMost: 5 })).toEqual({ jobs: [], refresh: [job('a', 4, 2), job('a', 1)], events: [] });
      // Each was stamped anew when handed out: none is 60 s old any more.
      expect((await feed(4, { refreshMost: 5 })).refresh).toEqual([]);
      expect(Number(await redis.zscore(windowKey(), sendJobId('a', 2)))).toBeGreaterThanOrEqual(now);
      expect(await ledger.windowSize(NUMBER)).toBe(4);
    });
  });

  describe('job IDs', () => {
    it('the IDs the script puts in the window are sendJobId’s, and parseSendJobId reads each back as the job fed', async () => {
      // Campaign IDs with dashes and digits, rows past 9, and job numbers past 0.
      await campaign('spring-sale-2024', 12);
      await campaign('c-7', 3);
      const fed: SendJob[] = [...(await feed(100)).jobs];
      // Row 1 of c-7 parked twice (job numbers 1, then 2), row 2 retried once.
      await ledger.pause('c-7', 'x');
      await ledger.claim(job('c-7', 1), NUMBER);
      await ledger.resume('c-7');
      fed.push(...(await feed(100)).jobs);
      await ledger.pause('c-7', 'x');
      await ledger.claim(job('c-7', 1, 1), NUMBER);
      await ledger.resume('c-7');
      await ledger.claim(job('c-7', 2), NUMBER);
      await ledger.settle(job('c-7', 2), { status: 'failed', errorCode: '131000', errorDetail: 'x' }, NUMBER);
      expect(await ledger.markForRetry('c-7', 1, 3, { codes: [], failed: true, unknown: false })).toEqual({
        requeued: 1,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
      });
      fed.push(...(await feed(100)).jobs);

      expect(fed).toContainEqual(job('c-7', 1, 2));
      expect(fed).toContainEqual(job('c-7', 2, 1));
      expect(fed).toContainEqual(job('spring-sale-2024', 12));
      const ids = await windowIds();
      expect(ids).toContain('c-7-1-r2');
      expect(ids).toContain('spring-sale-2024-12');
      // Every job still in the window is one of those fed, under sendJobId's ID, and reads back the same.
      const live = fed.filter(
        (j) => !(j.campaignId === 'c-7' && ((j.row === 1 && j.requeue !== 2) || (j.row === 2 && j.requeue === undefined))),
      );
      expect(ids).toEqual(live.map((j) => sendJobId(j.campaignId, j.row, j.requeue ?? 0)).sort());
      for (const id of ids) {
        const parsed = parseSendJobId(id);
        expect(parsed).toBeDefined();
        expect(sendJobId(parsed?.campaignId ?? '', parsed?.row ?? 0, parsed?.requeue ?? 0)).toBe(id);
        expect(live).toContainEqual(parsed);
      }
    });
  });
});
