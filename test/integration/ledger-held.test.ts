import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { Settlement, StatusUpdate } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import type { LedgerOptions } from '../../src/redis/ledger/ledger-context.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { feedAll, ingestQueuedCampaign, LEDGER_TEST_NUMBER as NUMBER } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';

/**
 * Held sends and webhook failures as the ledger's scripts decide them, on a real Redis: a send
 * Meta holds for quality assessment stays `held` (settle.lua) until a status webhook settles it
 * (apply-statuses.lua) or its patience runs out (confirm-in-doubt.lua); a failed status feeds the
 * error-spike brake as a failed answer does.
 */

const ID = 'held-campaign';
const HOUR = 3_600_000;
const PATIENCE_MS = 2 * HOUR;

describe('RedisLedger held sends and webhook failures (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let clock: TestClock;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-held');
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  function open(options: LedgerOptions = {}): void {
    clock = TestClock.stopped();
    ledger = new RedisLedger(redis, prefix, { heldPatienceMs: PATIENCE_MS, clock, ...options });
  }

  async function campaign(rows: number): Promise<SendJob[]> {
    await ingestQueuedCampaign(ledger, ID, rows);
    const { jobs } = await feedAll(ledger, NUMBER);
    return jobs.sort((a, b) => a.row - b.row);
  }

  async function answer(job: SendJob | undefined, settlement: Settlement) {
    if (job === undefined) throw new Error('no such job');
    expect((await ledger.claim(job, NUMBER)).outcome).toBe('claimed');
    return ledger.settle(job, settlement, NUMBER);
  }

  const held = (wamid: string): Settlement => ({ status: 'held', wamid });
  const sent = (wamid: string): Settlement => ({ status: 'sent', wamid });
  const status = (wamid: string, kind: StatusUpdate['kind'], more: Partial<StatusUpdate> = {}): StatusUpdate => ({
    phoneNumberId: NUMBER,
    wamid,
    kind,
    at: clock.now(),
    ...more,
  });

  async function row(n: number): Promise<RowRecord> {
    for await (const page of ledger.rows(ID)) {
      const found = page.find((r) => r.row === n);
      if (found !== undefined) return found;
    }
    throw new Error(`no row ${n}`);
  }

  it('a held answer leaves the row `held`, counted, not sent; no job sends it again; a sent status settles it', async () => {
    open();
    const jobs = await campaign(2);
    expect(await answer(jobs[0], held('wamid.H1'))).toEqual({ status: 'held', completedCampaign: false, pausedCampaign: false });
    expect(await answer(jobs[1], sent('wamid.S2'))).toMatchObject({ status: 'sent', completedCampaign: false });
    expect(await row(1)).toMatchObject({ status: 'held', wamid: 'wamid.H1' });
    const before = await ledger.status(ID);
    expect(before?.counts).toMatchObject({ held: 1, sent: 1, queued: 0 });
    expect(before?.finishedAt).toBeUndefined();
    expect(before?.state).toBe('running');
    // A duplicate job finds the row answered; a late answer does not move it.
    expect(await ledger.claim(jobs[0] as SendJob, NUMBER)).toEqual({ outcome: 'settled', status: 'held' });
    expect((await ledger.settle(jobs[0] as SendJob, sent('wamid.other'), NUMBER)).status).toBe('held');

    // Found by its message ID alone (no callback data): the wamid was indexed.
    expect(await ledger.applyStatuses([status('wamid.H1', 'sent')])).toEqual([{ outcome: 'applied', completedCampaign: true }]);
    expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'wamid.H1' });
    expect((await ledger.status(ID))?.counts).toMatchObject({ held: 0, sent: 2 });
    // Nothing is left for the patience sweep.
    clock.advance(PATIENCE_MS + 1);
    expect(await ledger.confirmInDoubt(NUMBER, 100)).toMatchObject({ heldExpired: 0, unknown: 0 });
  });

  it("a failed status fails a held row with Meta's code; 132015 puts the template's hold on the campaign", async () => {
    open();
    const jobs = await campaign(3);
    await answer(jobs[0], held('wamid.H1'));
    await answer(jobs[1], held('wamid.H2'));
    await ledger.applyStatuses([status('wamid.H1', 'failed', { code: '132015', detail: 'Template is Paused' })]);
    expect(await row(1)).toMatchObject({ status: 'failed', errorCode: '132015', errorDetail: 'Template is Paused' });
    expect(await ledger.status(ID)).toMatchObject({
      state: 'paused',
      pausedReason: 'TEMPLATE_PAUSED: PAUSED order_update (en_US): 132015 Template is Paused',
    });
    expect((await ledger.status(ID))?.counts).toMatchObject({ held: 1, failed: 1, sent: 0 });
    // delivered before sent (webhooks arrive in any order) releases it too.
    await ledger.applyStatuses([status('wamid.H2', 'delivered')]);
    expect(await row(2)).toMatchObject({ status: 'sent' });
    expect((await ledger.status(ID))?.counts).toMatchObject({ held: 0, sent: 1, delivered: 1 });
  });

  it('patience runs out: the held row becomes `unknown` (not resent), the campaign completes; a later status settles it', async () => {
    open();
    const jobs = await campaign(2);
    await answer(jobs[0], sent('wamid.S1'));
    await answer(jobs[1], held('wamid.H2'));
    clock.advance(PATIENCE_MS - 10);
    expect(await ledger.confirmInDoubt(NUMBER, 100)).toMatchObject({ heldExpired: 0 });
    expect((await ledger.status(ID))?.finishedAt).toBeUndefined();
    clock.advance(20);
    expect(await ledger.confirmInDoubt(NUMBER, 100)).toEqual({
      resent: 0,
      unknown: 0,
      ended: 0,
      heldExpired: 1,
      completedCampaigns: [ID],
    });
    expect(await row(2)).toMatchObject({ status: 'unknown', wamid: 'wamid.H2' });
    expect((await row(2)).errorDetail).toMatch(/^held_for_quality_assessment: .*HELD_PATIENCE_HOURS/);
    expect((await ledger.status(ID))?.state).toBe('completed');
    expect((await feedAll(ledger, NUMBER)).jobs).toEqual([]);
    await ledger.applyStatuses([status('wamid.H2', 'read')]);
    expect((await ledger.status(ID))?.counts).toMatchObject({ unknown: 0, sent: 2, read: 1 });
  });

  it('a failed status feeds the error-spike brake as a failed answer does, and pauses the campaign past its share', async () => {
    open({ autoPause: { window: 4, failureShare: 0.25 } });
    const jobs = await campaign(5);
    for (const [i, job] of jobs.slice(0, 4).entries()) await answer(job, sent(`wamid.S${i + 1}`));
    const fields = async () => redis.hmget(`${prefix}:{${NUMBER}}:campaign:${ID}`, 'recentSends', 'recentFails');
    expect(await fields()).toEqual(['4', null]);
    await ledger.applyStatuses([status('wamid.S1', 'failed', { code: '131026', detail: 'Message Undeliverable.' })]);
    expect(await fields()).toEqual(['5', '1']);
    expect((await ledger.status(ID))?.state).toBe('running');
    // A duplicate of the same failure is not a second one.
    await ledger.applyStatuses([status('wamid.S1', 'failed', { code: '131026', detail: 'Message Undeliverable.' })]);
    expect(await fields()).toEqual(['5', '1']);
    await ledger.applyStatuses([status('wamid.S2', 'failed', { code: '131049', detail: 'ecosystem' })]);
    expect(await ledger.status(ID)).toMatchObject({
      state: 'paused',
      pausedReason: 'ERROR_SPIKE: 2 of the last 4 sends failed permanently (latest 131049: ecosystem)',
    });
  });

  it('a held row feeds the brake when it settles, not when it is answered; a finished campaign is not fed', async () => {
    open({ autoPause: { window: 10, failureShare: 0.5 } });
    const jobs = await campaign(2);
    const fields = async () => redis.hmget(`${prefix}:{${NUMBER}}:campaign:${ID}`, 'recentSends', 'recentFails');
    await answer(jobs[0], held('wamid.H1'));
    expect(await fields()).toEqual([null, null]);
    await ledger.applyStatuses([status('wamid.H1', 'sent')]);
    expect(await fields()).toEqual(['1', null]);
    await answer(jobs[1], sent('wamid.S2'));
    expect((await ledger.status(ID))?.state).toBe('completed');
    await ledger.applyStatuses([status('wamid.S2', 'failed', { code: '131026', detail: 'Message Undeliverable.' })]);
    expect(await fields()).toEqual(['2', null]);
    expect((await ledger.status(ID))?.state).toBe('completed');
  });
});
