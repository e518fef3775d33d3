import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedOptions, FeedResult } from '../../src/campaigns/ledger.js';
import { groupRows, isSendGroup, rowsOf, type QueuedSend, type SendGroup } from '../../src/campaigns/send-job.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { RedisLedger, feedKeys } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { putStoredRow, storedRowOf } from '../support/stored-rows.js';
import { TestClock } from '../support/test-clock.js';

/**
 * Group jobs on a real Redis: feed.lua cuts the rows it feeds into jobs of several rows, one
 * window entry each, its rows kept so that a group handed out again is the same job with the
 * same rows; the room counts rows; group-done.lua ends a group once, however often it is called.
 */

const NUMBER = LEDGER_TEST_NUMBER;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('RedisLedger.feed with a group size (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let clock: TestClock;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-feed-groups');
    clock = TestClock.stopped();
    ledger = new RedisLedger(redis, prefix, { clock });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function campaign(id: string, rows: number): Promise<void> {
    await ledger.createCampaign(ledgerTestDefinition(id));
    await ledger.recordIngested(
      id,
      NUMBER,
      range(1, rows).map((n) => queuedRow(n)),
    );
    await ledger.finishIngest(id);
  }

  const feed = async (windowSize: number, more: Partial<FeedOptions> = {}): Promise<FeedResult> =>
    ledger.feed(NUMBER, { windowSize, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0, groupSize: 4, ...more });
  const rowsOfJobs = (jobs: readonly QueuedSend[]): string[] =>
    jobs.flatMap((j) => (isSendGroup(j) ? groupRows(j) : [j])).map((j) => `${j.campaignId}/${j.row}`);

  it('cuts the rows fed into groups in their order, the last one shorter; a remainder of one row is a job of one row', async () => {
    await campaign('a', 9);
    const fed = await feed(20);
    expect(fed.jobs).toHaveLength(9);
    const jobs = fed.groups ?? [];
    expect(jobs.map(rowsOf)).toEqual([4, 4, 1]);
    expect(isSendGroup(jobs[0]!)).toBe(true);
    expect((jobs[0] as SendGroup).group).toBe('g.a-1.4');
    expect(jobs[2]).toEqual({ campaignId: 'a', row: 9 });
    expect(rowsOfJobs(jobs)).toEqual(range(1, 9).map((n) => `a/${n}`));
    // The window holds 3 entries and counts 9 rows.
    expect(await redis.zcard(feedKeys(prefix, NUMBER).window)).toBe(3);
    expect(await ledger.windowSize(NUMBER)).toBe(9);
  });

  it('interleaves campaigns inside groups as it does jobs of one row', async () => {
    await campaign('a', 4);
    await campaign('b', 4);
    const jobs = (await feed(8)).groups ?? [];
    expect(jobs.map(rowsOf)).toEqual([4, 4]);
    const all = rowsOfJobs(jobs);
    // One of each in turn (which starts moves with the clock).
    expect(new Set(all.slice(0, 2).map((r) => r.split('/')[0]))).toEqual(new Set(['a', 'b']));
    expect([...all].sort()).toEqual([...range(1, 4).map((n) => `a/${n}`), ...range(1, 4).map((n) => `b/${n}`)].sort());
  });

  it('counts the room in rows: a full window feeds nothing until a group is done', async () => {
    await campaign('a', 20);
    const first = (await feed(8)).groups ?? [];
    expect(first.map(rowsOf)).toEqual([4, 4]);
    expect((await feed(8)).jobs).toEqual([]);
    await ledger.groupDone(NUMBER, first[0] as SendGroup);
    expect(await ledger.windowSize(NUMBER)).toBe(4);
    const next = (await feed(8)).groups ?? [];
    expect(rowsOfJobs(next)).toEqual(range(9, 12).map((n) => `a/${n}`));
  });

  it('a group done twice frees its rows once', async () => {
    await campaign('a', 12);
    const [group] = (await feed(8)).groups ?? [];
    await ledger.groupDone(NUMBER, group as SendGroup);
    await ledger.groupDone(NUMBER, group as SendGroup);
    expect(await ledger.windowSize(NUMBER)).toBe(4);
    expect(await redis.hlen(feedKeys(prefix, NUMBER).groups)).toBe(1);
    await feed(8);
    expect(await ledger.windowSize(NUMBER)).toBe(8);
  });

  it('hands a group fed long ago out again as the same job with the same rows, never its rows in a new group', async () => {
    await campaign('a', 6);
    const fed = (await feed(6)).groups ?? [];
    clock.advance(61_000);
    const again = await feed(6, { refreshMost: 10 });
    expect(again.jobs).toEqual([]);
    expect([...again.refresh].sort((x, y) => rowsOf(y) - rowsOf(x))).toEqual([...fed].sort((x, y) => rowsOf(y) - rowsOf(x)));
    // Handed out again, it is fresh: the next feed does not repeat it.
    expect((await feed(6, { refreshMost: 10 })).refresh).toEqual([]);
  });

  it('the last group done leaves nothing of the window behind', async () => {
    await campaign('a', 8);
    const jobs = (await feed(8)).groups ?? [];
    for (const job of jobs) await ledger.groupDone(NUMBER, job as SendGroup);
    const { window, groups, groupRows: rowsKey } = feedKeys(prefix, NUMBER);
    expect(await redis.exists(window, groups, rowsKey)).toBe(0);
    expect(await ledger.windowSize(NUMBER)).toBe(0);
  });
  it('a row in flight is in doubt only to its own group; another live job naming it leaves it; answered, it keeps no group', async () => {
    await campaign('a', 4);
    const [group] = (await feed(4)).groups ?? [];
    const [first] = groupRows(group as SendGroup);
    expect((await ledger.claim(first!, NUMBER)).outcome).toBe('claimed');
    const rowsKey = campaignLedgerKeys(prefix, NUMBER, 'a').rows;
    const stored = async () => storedRowOf(redis, rowsKey, 1);
    expect(await stored()).toMatchObject({ s: 'sending', g: 'g.a-1.4' });

    // A job of row 1 put in the queue by hand: the group's request is still to come.
    expect(await ledger.claim({ campaignId: 'a', row: 1 }, NUMBER)).toEqual({ outcome: 'stale' });
    expect(await ledger.claim({ campaignId: 'a', row: 1, inGroup: 'g.a-1.2' }, NUMBER)).toEqual({ outcome: 'stale' });
    expect(await stored()).toMatchObject({ s: 'sending', a: 1 });
    expect(await redis.zscore(feedKeys(prefix, NUMBER).window, 'g.a-1.4')).not.toBeNull();
    // The group's next run (its worker died mid-send) finds it in doubt.
    expect(await ledger.claim(first!, NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });

    // Only the group goes when the row moves on: its other fields (here a Flow answer, `j`) stay.
    await putStoredRow(redis, rowsKey, 1, JSON.stringify({ ...(await stored()), j: '{"size":"M"}' }));
    await ledger.settle(first!, { status: 'sent', wamid: 'wamid.1' }, NUMBER);
    const answered = await stored();
    expect(answered).toMatchObject({ s: 'sent', j: '{"size":"M"}' });
    expect(answered).not.toHaveProperty('g');
  });

  it('a row left in flight without its group (claimed before rows kept it) is in doubt to any job, never stranded', async () => {
    await campaign('a', 4);
    const [group] = (await feed(4)).groups ?? [];
    const [first] = groupRows(group as SendGroup);
    expect((await ledger.claim(first!, NUMBER)).outcome).toBe('claimed');
    const rowsKey = campaignLedgerKeys(prefix, NUMBER, 'a').rows;
    const { g, ...claimed } = (await storedRowOf(redis, rowsKey, 1))!;
    expect(g).toBe('g.a-1.4');
    await putStoredRow(redis, rowsKey, 1, JSON.stringify(claimed));

    const anotherGroup = { campaignId: 'a', row: 1, inGroup: 'g.a-1.2' };
    expect(await ledger.claim(anotherGroup, NUMBER)).toEqual({ outcome: 'in-doubt', attempts: 1 });
  });
});
