import { describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { timelineSeries, type TimelineBucket } from '../../src/campaigns/report/campaign-timeline.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';

const NUMBER = LEDGER_TEST_NUMBER;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A minute's start plus 10 s: the bucket of a change is the minute it falls in. */
const T0 = Date.parse('2030-01-01T09:00:10Z');
const T0_S = Date.parse('2030-01-01T09:00:00Z') / 1000;

const job = (row: number, requeue?: number): SendJob =>
  requeue === undefined ? { campaignId: 'tl', row } : { campaignId: 'tl', row, requeue };
const byField = (buckets: TimelineBucket[]) => Object.fromEntries(buckets.map((b) => [`${b.kind}:${b.start}:${b.width}`, b.delta]));

/**
 * A campaign's timeline (src/redis/lua/includes/timeline.lua, read by src/redis/ledger/ledger-timeline.ts)
 * on a real Redis: the scripts count each move of `n:sent` / `n:failed` and each first
 * delivered / read into the bucket of the ledger's clock, the buckets widen with the campaign's
 * age, the counters and the series agree, replies are counted once per row, and purge deletes it.
 */
describe('the campaign timeline (real Redis)', () => {
  const openLedger = ledgersPerTest('timeline');

  it('counts sends, failures, deliveries and reads by minute; the series ends at the counters', async () => {
    const clock = TestClock.stopped(T0);
    const { ledger } = openLedger({}, clock);
    await ingestQueuedCampaign(ledger, 'tl', 5);
    await feedAll(ledger);
    for (const row of [1, 2]) {
      await ledger.claim(job(row), NUMBER);
      await ledger.settle(job(row), { status: 'sent', wamid: `w${row}` }, NUMBER);
    }
    clock.advance(MINUTE);
    await ledger.claim(job(3), NUMBER);
    await ledger.settle(job(3), { status: 'failed', errorCode: '131026', errorDetail: 'x' }, NUMBER);
    await ledger.claim(job(4), NUMBER);
    await ledger.settle(job(4), { status: 'sent', wamid: 'w4' }, NUMBER);
    clock.advance(MINUTE);
    const at = clock.now();
    const status = (wamid: string, kind: 'delivered' | 'read' | 'failed', code?: string) => ({
      phoneNumberId: NUMBER,
      wamid,
      kind,
      at,
      ...(code === undefined ? {} : { code, detail: 'y' }),
    });
    await ledger.applyStatuses([status('w1', 'delivered'), status('w1', 'read'), status('w4', 'delivered'), status('w4', 'delivered')]);
    // A sent row Meta then reports failed: one less sent, one more failed, in this minute.
    await ledger.applyStatuses([status('w2', 'failed', '131047')]);
    const reply = { phoneNumberId: NUMBER, waId: '4915100000001', wamid: 'in1', at, replyTo: 'w1', reply: 'Yes', optOut: false };
    await ledger.applyInbound([reply, { ...reply, wamid: 'in2', reply: 'No' }]);

    const timeline = await ledger.timeline('tl');
    expect(timeline?.now).toBe(at);
    expect(byField(timeline?.buckets ?? [])).toEqual({
      [`sent:${T0_S}:60`]: 2,
      [`sent:${T0_S + 60}:60`]: 1,
      [`failed:${T0_S + 60}:60`]: 1,
      [`sent:${T0_S + 120}:60`]: -1,
      [`failed:${T0_S + 120}:60`]: 1,
      [`delivered:${T0_S + 120}:60`]: 2,
      [`read:${T0_S + 120}:60`]: 1,
    });
    const counts = (await ledger.status('tl'))?.counts;
    expect(timeline?.counts).toEqual({ sent: 2, failed: 2, delivered: 2, read: 1, replied: 1 });
    expect(counts).toMatchObject({ sent: 2, failed: 2, delivered: 2, read: 1 });

    const series = timelineSeries(timeline!);
    expect(series.t).toEqual([T0_S, T0_S + 60, T0_S + 120, T0_S + 130]);
    expect(series.sent).toEqual([0, 2, 3, 2]);
    expect(series.failed).toEqual([0, 0, 1, 2]);
    expect(series.delivered).toEqual([0, 0, 0, 2]);
    expect(series.read).toEqual([0, 0, 0, 1]);
  });

  it('widens its buckets with the campaign’s age: an hour after 6 h, a day after 7 days', async () => {
    const clock = TestClock.stopped(T0);
    const { ledger } = openLedger({}, clock);
    await ingestQueuedCampaign(ledger, 'tl', 3);
    await feedAll(ledger);
    const sendAt = async (row: number, ms: number) => {
      clock.set(ms);
      await ledger.claim(job(row), NUMBER);
      await ledger.settle(job(row), { status: 'sent', wamid: `w${row}` }, NUMBER);
    };
    await sendAt(1, T0 + 5 * HOUR);
    await sendAt(2, T0 + 7 * HOUR);
    await sendAt(3, T0 + 8 * DAY);
    const fields = Object.keys(byField((await ledger.timeline('tl'))?.buckets ?? []));
    const hourStart = Math.floor((T0 + 7 * HOUR) / HOUR) * 3600;
    const dayStart = Math.floor((T0 + 8 * DAY) / DAY) * 86400;
    expect(fields.sort()).toEqual([`sent:${T0_S + 5 * 3600}:60`, `sent:${hourStart}:3600`, `sent:${dayStart}:86400`].sort());
  });

  it('a retry takes the failed rows it requeues off the failed line; purge deletes the timeline', async () => {
    const clock = TestClock.stopped(T0);
    const { ledger, redis, prefix } = openLedger({}, clock);
    await ingestQueuedCampaign(ledger, 'tl', 2);
    await feedAll(ledger);
    await ledger.claim(job(1), NUMBER);
    await ledger.settle(job(1), { status: 'failed', errorCode: '131026', errorDetail: 'x' }, NUMBER);
    clock.advance(MINUTE);
    await ledger.markForRetry('tl', 1, 2, { codes: [], failed: true, unknown: false });
    expect(byField((await ledger.timeline('tl'))?.buckets ?? [])).toEqual({
      [`failed:${T0_S}:60`]: 1,
      [`failed:${T0_S + 60}:60`]: -1,
    });
    await ledger.cancel('tl');
    await feedAll(ledger);
    await ledger.claim(job(1, 1), NUMBER);
    await ledger.claim(job(2), NUMBER);
    expect((await ledger.status('tl'))?.finishedAt).toBeDefined();
    const timelineKey = campaignLedgerKeys(prefix, NUMBER, 'tl').timeline;
    expect(await redis.exists(timelineKey)).toBe(1);
    await ledger.purge('tl');
    expect(await redis.exists(timelineKey)).toBe(0);
    expect((await ledger.timeline('tl'))?.buckets).toEqual([]);
    expect(await ledger.timeline('no-such-campaign')).toBeUndefined();
  });
});
