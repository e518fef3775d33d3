import { describe, expect, it } from 'vitest';
import { campaignLedgerKeys, sentGuardKeys, wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import { guardEntries } from '../support/sent-guard.js';
import { LEDGER_TEST_NUMBER as NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { ledgersPerTest } from '../support/test-ledger.js';

/**
 * A claim's and a settle's counters (n:<status>, the timeline, the entries of the duplicate
 * guard and of the message-ID index) are gathered and written once a call
 * (includes/counts.lua), on a real Redis: they match the rows after a call of many, and a call
 * that fails on one row still counts the rows it changed before it.
 */

const ID = 'counts';
const open = ledgersPerTest('ledger-counts');

describe('RedisLedger counters written once a call (real Redis)', () => {
  it('counts every row of a call of many, by status', async () => {
    const t = open();
    await ingestQueuedCampaign(t.ledger, ID, 30);
    const jobs = (await feedAll(t.ledger)).jobs.filter((j) => j.campaignId === ID);
    expect((await Promise.all(jobs.map((job) => t.ledger.claim(job)))).every((c) => c.outcome === 'claimed')).toBe(true);
    const { campaign } = campaignLedgerKeys(t.prefix, NUMBER, ID);
    expect(await t.redis.hmget(campaign, 'n:queued', 'n:sending')).toEqual(['0', '30']);
    await Promise.all(
      jobs.map((job, i) =>
        t.ledger.settle(
          job,
          i % 3 === 0 ? { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' } : { status: 'sent', wamid: `wamid.c${i}` },
        ),
      ),
    );
    expect(await t.redis.hmget(campaign, 'n:sending', 'n:sent', 'n:failed', 'finishedAt')).toEqual(['0', '20', '10', expect.any(String)]);
    const timeline = await t.redis.hgetall(`${campaign}:timeline`);
    const total = (kind: string) =>
      Object.entries(timeline)
        .filter(([field]) => field.startsWith(`${kind}:`))
        .reduce((sum, [, n]) => sum + Number(n), 0);
    expect([total('sent'), total('failed')]).toEqual([20, 10]);
  });

  it("counts the guard's and the index's entries a call of many adds, across the guard's splits and the index's widths", async () => {
    const t = open({ duplicateWindowMs: 24 * 3_600_000 });
    const rows = 300;
    await ingestQueuedCampaign(t.ledger, ID, rows);
    const jobs = (await feedAll(t.ledger)).jobs.filter((j) => j.campaignId === ID);
    expect((await Promise.all(jobs.map((job) => t.ledger.claim(job)))).every((c) => c.outcome === 'claimed')).toBe(true);
    const { sent } = sentGuardKeys(t.prefix, NUMBER);
    // 300 entries split the guard's one bucket several times (48 a bucket) inside the calls that added them.
    expect(Number(await t.redis.hget(`${sent}:map`, 'n'))).toBeGreaterThan(4);
    expect(Object.keys(await guardEntries(t.redis, sent))).toHaveLength(rows);
    expect(await t.redis.hget(`${sent}:map`, 'count')).toBe(String(rows));

    await Promise.all(jobs.map((job) => t.ledger.settle(job, { status: 'sent', wamid: `wamid.count.${job.row}` })));
    // 300 message IDs take the index through widths 0 to 3 (64 entries a bucket before it widens).
    expect(await t.peek.wamidCount()).toBe(rows);
    expect(await t.redis.hget(`${wamidsKey(t.prefix, NUMBER)}:campaigns`, 'count')).toBe(String(rows));
    expect((await t.redis.hget(`${wamidsKey(t.prefix, NUMBER)}:campaigns`, 'widths'))?.trim().split(' ')).toEqual(['0', '1', '2', '3']);
    // Each width took the entries written while the count called for it: width 0 the first 64, no more.
    expect(await t.redis.hlen(`${wamidsKey(t.prefix, NUMBER)}:w0:0`)).toBe(64);
    for (const job of jobs) expect(await t.peek.wamidOwner(`wamid.count.${job.row}`)).toBe(`${ID}/${job.row}`);
  });

  it('still counts the rows a settle answered before one it could not read failed the call', async () => {
    const t = open();
    await ingestQueuedCampaign(t.ledger, ID, 65);
    const jobs = (await feedAll(t.ledger)).jobs.filter((j) => j.campaignId === ID && (j.row === 1 || j.row === 65));
    for (const job of jobs) expect((await t.ledger.claim(job)).outcome).toBe('claimed');
    // Row 65 is the first of the second list of rows (64 a list): that list made unreadable.
    const { campaign, rows } = campaignLedgerKeys(t.prefix, NUMBER, ID);
    await t.redis.del(`${rows}:1`);
    await t.redis.set(`${rows}:1`, 'not a list');
    const answers = await Promise.allSettled(
      jobs.sort((a, b) => a.row - b.row).map((job) => t.ledger.settle(job, { status: 'sent', wamid: 'wamid.x' })),
    );
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    expect(String((answers[0] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    // Row 1 was stored sent before row 65 failed the call: it is counted so.
    expect(await t.redis.hmget(campaign, 'n:sending', 'n:sent')).toEqual(['1', '1']);
  });
});
