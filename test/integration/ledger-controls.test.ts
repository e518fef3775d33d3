import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import type { FeedResult, IngestedRow } from '../../src/campaigns/ledger.js';
import { sendJobId, type SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger, campaignLedgerKeys, feedKeys, type AutoPauseSettings } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { ledgerPeek } from '../support/ledger-peek.js';
import { putStoredRow, storedRowOf } from '../support/stored-rows.js';

/**
 * The campaign controls as the ledger decides them (src/redis/ledger/ledger-scripts.ts), on a real
 * Redis under a fresh prefix: which job may claim a row and what it gets, which answers
 * count, what a halt, a pause, a cancel and a retry move (rows go back to the backlog under a
 * new job number; cancel takes the backlog as a block), and the error-spike brake.
 * As in production, a row is fed (popped off the backlog into the number's window) before
 * its job claims it.
 */

const ID = 'ctl';
const NUMBER = LEDGER_TEST_NUMBER;
const TOKEN_DETAIL = 'Error validating access token: Session has expired.';

const definition = (id = ID): CampaignDefinition => ledgerTestDefinition(id);

/** The first job of a row (requeue absent), or its job number `requeue`; as the feeder makes them. */
function job(row: number, requeue?: number, id = ID): SendJob {
  const base: SendJob = { campaignId: id, row };
  return requeue === undefined ? base : { ...base, requeue };
}

describe('RedisLedger campaign controls (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-ctl');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /**
   * A campaign of `queued` rows 1..n (plus any extra ingested rows), ingest finished unless
   * told otherwise, and fed (all of its rows, or `fed` of them; `fed: 0` leaves the backlog whole).
   */
  async function campaign(
    n: number,
    options: { extra?: IngestedRow[]; finish?: boolean; on?: RedisLedger; id?: string; fed?: number } = {},
  ): Promise<void> {
    const l = options.on ?? ledger;
    const id = options.id ?? ID;
    await l.createCampaign(definition(id));
    const rows: IngestedRow[] = Array.from({ length: n }, (_, i) => queuedRow(i + 1));
    await l.recordIngested(id, NUMBER, [...rows, ...(options.extra ?? [])]);
    if (options.finish !== false) await l.finishIngest(id);
    if (options.fed !== 0) await feed(options.fed === undefined ? 1000 : (await l.windowSize(NUMBER)) + options.fed, l);
  }

  /** One feed of the number, the window `size` jobs at most. */
  const feed = async (size = 1000, l: RedisLedger = ledger): Promise<FeedResult> => feedAll(l, NUMBER, size);

  async function row(n: number, id = ID): Promise<RowRecord> {
    for await (const page of ledger.rows(id)) {
      const found = page.find((r) => r.row === n);
      if (found !== undefined) return found;
    }
    throw new Error(`no row ${n}`);
  }

  async function statuses(id = ID): Promise<string[]> {
    const out: string[] = [];
    for await (const page of ledger.rows(id)) out.push(...page.map((r) => r.status));
    return out;
  }

  /** The row's owner number as stored (k); 0 = its first job. */
  async function owner(n: number, id = ID): Promise<number> {
    const row = await storedRowOf(redis, campaignLedgerKeys(prefix, NUMBER, id).rows, n);
    if (row === undefined) throw new Error(`no row ${n}`);
    return row.k ?? 0;
  }

  /** The campaign's backlog, front first: "row" (its first job) or "row:k". */
  const backlog = async (id = ID): Promise<string[]> => redis.lrange(campaignLedgerKeys(prefix, NUMBER, id).pending, 0, -1);
  /** The backlog with its first `parked` entries sorted: parked rows wait at the front, in no promised order among themselves. */
  const backlogParkedFirst = async (parked: number, id = ID): Promise<string[]> => {
    const entries = await backlog(id);
    return [...entries.slice(0, parked).sort(), ...entries.slice(parked)];
  };
  /** The job IDs fed to the number and not done. */
  const windowIds = async (): Promise<string[]> => (await redis.zrange(feedKeys(prefix, NUMBER).window, 0, -1)).sort();
  const inWindow = async (j: SendJob): Promise<boolean> =>
    (await redis.zscore(feedKeys(prefix, NUMBER).window, sendJobId(j.campaignId, j.row, j.requeue ?? 0))) !== null;
  const counts = async (id = ID) => (await ledger.status(id))?.counts;

  describe('claim', () => {
    it('a settled row answers before anything else, even to a job that no longer owns it', async () => {
      await campaign(1);
      expect(await ledger.claim(job(1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.1' });
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'sent' });
      expect(await ledger.claim(job(1, 7))).toEqual({ outcome: 'settled', status: 'sent' });
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'completed' });
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'sent' });
    });

    it('a job that is not the row’s owner is stale, even while the owner’s attempt is in doubt', async () => {
      await campaign(1);
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(1);
      await ledger.resume(ID);
      expect((await feed()).jobs).toEqual([job(1, 1)]);
      expect(await ledger.claim(job(1, 1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      // The first job (k 0) comes back, e.g. a duplicate in BullMQ.
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'stale' });
      expect(await ledger.claim(job(1, 2))).toEqual({ outcome: 'stale' });
      // The owner itself sees its own earlier attempt in doubt.
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await counts()).toMatchObject({ sending: 1, queued: 0 });
      // The stale jobs ended; the owner's job is still running (in doubt, not done).
      expect(await windowIds()).toEqual([sendJobId(ID, 1, 1)]);
    });

    it('a row left sending is in doubt even when the campaign is paused or cancelled (never parked, never cancelled)', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await backlog()).toEqual([]);
      expect(await owner(1)).toBe(0);
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await counts()).toMatchObject({ sending: 2, cancelled: 0 });
      expect(await statuses()).toEqual(['sending', 'sending']);
    });

    it('on a cancelled campaign the owner’s claim cancels the fed row and ends its job; the last one completes the campaign', async () => {
      await campaign(2);
      // Both rows were fed: none is in the backlog, so cancel leaves them to their claims.
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
      expect(await counts()).toMatchObject({ queued: 2, cancelled: 0 });
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'cancelled' });
      expect((await ledger.status(ID))?.finishedAt).toBeUndefined();
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'settled', status: 'cancelled', completedCampaign: true });
      const status = await ledger.status(ID);
      expect(status?.state).toBe('cancelled');
      expect(status?.counts).toMatchObject({ total: 2, queued: 0, cancelled: 2 });
      expect(status?.finishedAt).toBeTypeOf('number');
      expect((await row(1)).status).toBe('cancelled');
      expect(await windowIds()).toEqual([]);
    });

    it('on a paused campaign the row stays queued, gets owner k+1 and goes back to the front of the backlog; its job ends', async () => {
      await campaign(3, { fed: 1 });
      expect(await backlog()).toEqual(['2', '3']);
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(1);
      expect(await row(1)).toMatchObject({ status: 'queued', attempts: 0, requeue: 1 });
      expect(await backlog()).toEqual(['1:1', '2', '3']);
      expect(await windowIds()).toEqual([]);
      expect(await counts()).toMatchObject({ queued: 3, sending: 0 });
      // The old job is stale now, whatever happens.
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'stale' });
      expect(await backlog()).toEqual(['1:1', '2', '3']);

      // Fed again after a resume, and parked again by a second pause: k 2, and only k 2 in the backlog.
      await ledger.resume(ID);
      expect((await feed(1)).jobs).toEqual([job(1, 1)]);
      await ledger.pause(ID, 'again');
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(2);
      expect(await backlog()).toEqual(['1:2', '2', '3']);
      expect(await counts()).toMatchObject({ queued: 3, sending: 0 });
    });

    it('a running campaign’s owner claims: sending, attempts counted across retries', async () => {
      await campaign(1);
      expect(await ledger.claim(job(1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      expect(await counts()).toMatchObject({ queued: 0, sending: 1 });
      await ledger.settle(job(1), { status: 'queued', errorCode: '131000', errorDetail: 'try again' });
      expect(await counts()).toMatchObject({ queued: 1, sending: 0 });
      // BullMQ runs the same job again: it stays in the window, and nothing goes back to the backlog.
      expect(await inWindow(job(1))).toBe(true);
      expect(await backlog()).toEqual([]);
      expect(await ledger.claim(job(1))).toMatchObject({ outcome: 'claimed', attempt: 2 });
      await expect(ledger.claim(job(9))).rejects.toThrow(/no row 9/);
    });
  });

  describe('settle', () => {
    it('ignores an answer from a job that does not own the row', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      expect(await ledger.settle(job(1, 1), { status: 'sent', wamid: 'wamid.x' })).toEqual({
        status: 'sending',
        completedCampaign: false,
        pausedCampaign: false,
      });
      expect(await counts()).toMatchObject({ sending: 1, sent: 0 });
      expect(await ledgerPeek(redis, prefix).wamidCount(NUMBER)).toBe(0);
      expect(await inWindow(job(1))).toBe(true);
    });

    it('keeps the first final answer: later ones (a shutdown’s unknown included) change nothing', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      expect(await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.first' })).toEqual({
        status: 'sent',
        completedCampaign: true,
        pausedCampaign: false,
      });
      expect(await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'late' })).toEqual({
        status: 'sent',
        completedCampaign: false,
        pausedCampaign: false,
      });
      expect(await ledger.settle(job(1), { status: 'unknown', errorCode: 'SHUTDOWN_IN_FLIGHT', errorDetail: 'late' })).toMatchObject({
        status: 'sent',
      });
      expect(await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.second' })).toMatchObject({
        status: 'sent',
        completedCampaign: false,
      });
      expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'wamid.first' });
      expect((await row(1)).errorCode).toBeUndefined();
      expect(await counts()).toMatchObject({ sent: 1, failed: 0, unknown: 0 });
      expect(await windowIds()).toEqual([]);
      expect(await backlog()).toEqual([]);
    });

    it('abandoned: unknown when the row was sending, failed when it was waiting', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      await ledger.settle(job(2), { status: 'queued', errorCode: '131000', errorDetail: 'backing off' });
      const gaveUp = { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: 'job stalled more than allowable limit' } as const;
      expect((await ledger.settle(job(1), gaveUp)).status).toBe('unknown');
      expect((await ledger.settle(job(2), gaveUp)).status).toBe('failed');
      expect(await row(1)).toMatchObject({ status: 'unknown', errorCode: 'WORKER_GAVE_UP' });
      expect(await row(2)).toMatchObject({ status: 'failed', errorCode: 'WORKER_GAVE_UP' });
      expect(await counts()).toMatchObject({ unknown: 1, failed: 1, queued: 0, sending: 0 });
      expect(await windowIds()).toEqual([]);
    });

    it(
      'retry puts failed and unknown rows (not sent or retrying ones) at the end of the ' +
        'backlog as row:k+1; the new job’s answer is final',
      async () => {
        await campaign(6, { fed: 4 });
        for (const n of [1, 2, 3, 4]) await ledger.claim(job(n));
        await ledger.settle(job(1), { status: 'failed', errorCode: '132000', errorDetail: 'params' });
        await ledger.settle(job(2), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'maybe' });
        await ledger.settle(job(3), { status: 'sent', wamid: 'wamid.3' });
        await ledger.settle(job(4), { status: 'queued', errorCode: '131000', errorDetail: 'again' });
        expect(await backlog()).toEqual(['5', '6']);

        expect(await ledger.markForRetry(ID, 1, 4, { codes: [], failed: true, unknown: true })).toEqual({
          requeued: 2,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect(await backlog()).toEqual(['5', '6', '1:1', '2:1']);
        expect(await owner(1)).toBe(1);
        expect(await owner(4)).toBe(0);
        // The rows waiting first go first; the retried ones follow, under their new job numbers.
        expect((await feed()).jobs).toEqual([job(5), job(6), job(1, 1), job(2, 1)]);
        expect(await ledger.claim(job(1, 1))).toMatchObject({ outcome: 'claimed', attempt: 2 });
        await ledger.settle(job(1, 1), { status: 'sent', wamid: 'wamid.1b' });
        expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'wamid.1b', requeue: 1 });
        expect((await row(1)).errorCode).toBeUndefined();
        expect(await ledgerPeek(redis, prefix).wamidOwner('wamid.1b', NUMBER)).toBe(`${ID}/1`);
        expect(await inWindow(job(1, 1))).toBe(false);
      },
    );
  });

  describe('halt', () => {
    it(
      'puts the claimed row back to queued under a new owner at the front of the backlog, ends its ' +
        'job, pauses with `code: detail` (the first reason stays)',
      async () => {
        await campaign(3, { fed: 2 });
        await ledger.claim(job(1));
        await ledger.claim(job(2));
        await ledger.halt(job(1), '190', TOKEN_DETAIL);
        const status = await ledger.status(ID);
        expect(status?.state).toBe('paused');
        expect(status?.pausedReason).toBe(`190: ${TOKEN_DETAIL}`);
        expect(status?.pausedAt).toBeTypeOf('number');
        expect(status?.counts).toMatchObject({ queued: 2, sending: 1, failed: 0 });
        expect(await row(1)).toMatchObject({ status: 'queued', errorCode: '190' });
        expect(await owner(1)).toBe(1);
        expect(await backlog()).toEqual(['1:1', '3']);
        expect(await windowIds()).toEqual([sendJobId(ID, 2)]);

        await ledger.halt(job(2), '131031', 'Business account locked');
        expect((await ledger.status(ID))?.pausedReason).toBe(`190: ${TOKEN_DETAIL}`);
        expect(await backlogParkedFirst(2)).toEqual(['1:1', '2:1', '3']);
        expect(await windowIds()).toEqual([]);
        // Paused: nothing is fed. Resumed: the halted rows first, then row 3, which never started.
        expect((await feed()).jobs).toEqual([]);
        await ledger.resume(ID);
        const { jobs } = await feed();
        expect(jobs.slice(0, 2).sort((a, b) => a.row - b.row)).toEqual([job(1, 1), job(2, 1)]);
        expect(jobs.slice(2)).toEqual([job(3)]);
      },
    );

    it('does nothing to a row that is not sending or not owned by the job', async () => {
      await campaign(2);
      await ledger.halt(job(1), '190', TOKEN_DETAIL);
      await ledger.claim(job(2));
      await ledger.halt(job(2, 3), '190', TOKEN_DETAIL);
      const status = await ledger.status(ID);
      expect(status?.state).toBe('running');
      expect(status?.counts).toMatchObject({ queued: 1, sending: 1 });
      expect(await backlog()).toEqual([]);
      expect([await owner(1), await owner(2)]).toEqual([0, 0]);
      expect(await inWindow(job(2))).toBe(true);
    });

    it('on a cancelled campaign cancels the row, and completes the campaign when it was the last open row', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      await ledger.settle(job(2), { status: 'sent', wamid: 'wamid.2' });
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
      await ledger.halt(job(1), '190', TOKEN_DETAIL);
      const status = await ledger.status(ID);
      expect(status?.state).toBe('cancelled');
      expect(status?.counts).toMatchObject({ sent: 1, cancelled: 1, sending: 0, queued: 0 });
      expect(await backlog()).toEqual([]);
      expect(await owner(1)).toBe(0);
      expect(await windowIds()).toEqual([]);
      // Every row has its final answer: the campaign is finished, as when a send or a claim answers last.
      expect(status?.finishedAt).toBeTypeOf('number');
    });
  });

  describe('error-spike brake', () => {
    const brake: AutoPauseSettings = { window: 10, failureShare: 0.2 };
    const fail = { status: 'failed', errorCode: '132000', errorDetail: 'Number of parameters does not match' } as const;

    async function answer(l: RedisLedger, n: number, failed: boolean) {
      await l.claim(job(n));
      return l.settle(job(n), failed ? fail : { status: 'sent', wamid: `wamid.${n}` });
    }

    it(
      'pauses on the 3rd failure among the last 10 sends (window 10, share 0.2), with an ' +
        'ERROR_SPIKE reason; resume starts the window empty',
      async () => {
        const braked = new RedisLedger(redis, prefix, { autoPause: brake });
        await campaign(30, { on: braked });
        // F F, then 9 sent: both failures slide out of the window of 10.
        for (const n of [1, 2]) expect((await answer(braked, n, true)).pausedCampaign).toBe(false);
        for (let n = 3; n <= 11; n++) expect((await answer(braked, n, false)).pausedCampaign).toBe(false);
        // 4th and 5th failures overall, but the 1st and 2nd in the window: no pause.
        expect((await answer(braked, 12, true)).pausedCampaign).toBe(false);
        expect((await answer(braked, 13, true)).pausedCampaign).toBe(false);
        expect((await braked.status(ID))?.state).toBe('running');
        // The 3rd failure among the last 10: paused.
        expect((await answer(braked, 14, true)).pausedCampaign).toBe(true);
        let status = await braked.status(ID);
        expect(status?.state).toBe('paused');
        expect(status?.pausedReason).toMatch(
          /^ERROR_SPIKE: 3 of the last 10 sends failed permanently \(latest 132000: Number of parameters/,
        );

        // A send in flight that fails afterwards does not pause it "again" or change the reason.
        await braked.claim(job(15));
        expect(await braked.pause(ID, 'x')).toEqual({ outcome: 'already-paused' });
        expect((await braked.settle(job(15), fail)).pausedCampaign).toBe(false);
        expect((await braked.status(ID))?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of/);

        expect((await braked.resume(ID)).outcome).toBe('resumed');
        expect(await redis.exists(campaignLedgerKeys(prefix, NUMBER, ID).recent)).toBe(0);
        // Without the reset, 4 failures would still be in the window and row 16 would pause at once.
        expect((await answer(braked, 16, true)).pausedCampaign).toBe(false);
        expect((await answer(braked, 17, true)).pausedCampaign).toBe(false);
        expect((await answer(braked, 18, true)).pausedCampaign).toBe(true);
        status = await braked.status(ID);
        expect(status?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of the last 10/);
      },
    );

    it('unknown answers and retrying rows do not feed the brake; without autoPause it is off', async () => {
      const braked = new RedisLedger(redis, prefix, { autoPause: brake });
      await campaign(20, { on: braked });
      for (let n = 1; n <= 5; n++) {
        await braked.claim(job(n));
        await braked.settle(job(n), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' });
      }
      for (let n = 6; n <= 10; n++) {
        await braked.claim(job(n));
        await braked.settle(job(n), { status: 'queued', errorCode: '131000', errorDetail: 'x' });
      }
      expect((await braked.status(ID))?.state).toBe('running');

      // The same ledger without the option: 10 failures in a row, no pause.
      for (let n = 11; n <= 20; n++) expect((await answer(ledger, n, true)).pausedCampaign).toBe(false);
      expect((await ledger.status(ID))?.state).toBe('running');
    });
  });

  describe('pause, resume, cancel', () => {
    it('answer missing for a campaign that does not exist', async () => {
      expect(await ledger.pause('nope', 'x')).toEqual({ outcome: 'missing' });
      expect(await ledger.resume('nope')).toEqual({ outcome: 'missing' });
      expect(await ledger.cancel('nope')).toEqual({ outcome: 'missing' });
      expect(await ledger.status('nope')).toBeUndefined();
    });

    it('on a running campaign: pause, already-paused (first reason kept), resumed, not-paused', async () => {
      await campaign(1);
      expect(await ledger.resume(ID)).toEqual({ outcome: 'not-paused' });
      expect(await ledger.pause(ID, 'first')).toEqual({ outcome: 'paused' });
      expect(await ledger.pause(ID, 'second')).toEqual({ outcome: 'already-paused' });
      expect((await ledger.status(ID))?.pausedReason).toBe('first');
      expect(await ledger.isHeld(ID)).toBe(true);
      expect(await ledger.resume(ID)).toEqual({ outcome: 'resumed' });
      const status = await ledger.status(ID);
      expect(status).toMatchObject({ state: 'running', pausedReason: undefined, pausedAt: undefined });
      expect(await ledger.isHeld(ID)).toBe(false);
      expect(await ledger.resume(ID)).toEqual({ outcome: 'not-paused' });
    });

    it('on a completed campaign: pause and cancel refuse (completed), resume is not-paused', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'sent', wamid: 'w' });
      expect((await ledger.status(ID))?.state).toBe('completed');
      expect(await ledger.pause(ID, 'x')).toEqual({ outcome: 'completed' });
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'completed' });
      expect(await ledger.resume(ID)).toEqual({ outcome: 'not-paused' });
      expect((await ledger.status(ID))?.state).toBe('completed');
    });

    it('a campaign paused while its last rows were in flight completes when they answer: the pause is lifted', async () => {
      await campaign(2);
      expect((await ledger.claim(job(1))).outcome).toBe('claimed');
      expect((await ledger.claim(job(2))).outcome).toBe('claimed');
      expect(await ledger.pause(ID, 'operator')).toEqual({ outcome: 'paused' });
      await ledger.settle(job(1), { status: 'sent', wamid: 'w1' });
      expect((await ledger.status(ID))?.state).toBe('paused');
      const last = await ledger.settle(job(2), { status: 'sent', wamid: 'w2' });
      expect(last.completedCampaign).toBe(true);
      expect(await ledger.status(ID)).toMatchObject({ state: 'completed', pausedReason: undefined, pausedAt: undefined });
      expect(await ledger.isHeld(ID)).toBe(false);
    });

    it(
      'on a cancelled campaign: pause and resume refuse (cancelled), cancel again cancels nothing ' +
        'more; cancelling a paused campaign lifts the pause',
      async () => {
        // Row 1 fed (its job runs later), row 2 still in the backlog.
        await campaign(2, { fed: 1 });
        await ledger.pause(ID, 'x');
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 1 });
        expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', pausedReason: undefined, finishedAt: undefined });
        expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
        expect(await ledger.resume(ID)).toEqual({ outcome: 'cancelled' });
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
        expect(await counts()).toMatchObject({ queued: 1, cancelled: 1 });
        expect(await ledger.isHeld(ID)).toBe(true);
        // Even once every row is cancelled (finished), it stays `cancelled` for these commands.
        expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'cancelled', completedCampaign: true });
        expect((await ledger.status(ID))?.finishedAt).toBeTypeOf('number');
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
        expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
        expect(await counts()).toMatchObject({ total: 2, queued: 0, cancelled: 2 });
      },
    );
  });

  describe('cancel', () => {
    it(
      'cancels the backlog as a block (parked rows too): counts move at once, rows() reports those rows cancelled; ' +
        'fed rows wait for their claim; rows in flight and answered rows keep their answer',
      async () => {
        await campaign(6, { fed: 3 });
        await ledger.claim(job(1));
        await ledger.settle(job(1), { status: 'sent', wamid: 'w1' });
        await ledger.claim(job(2));
        await ledger.pause(ID, 'x');
        expect(await ledger.claim(job(3))).toEqual({ outcome: 'parked' });
        expect(await backlog()).toEqual(['3:1', '4', '5', '6']);

        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 4 });
        expect(await redis.exists(campaignLedgerKeys(prefix, NUMBER, ID).pending)).toBe(0);
        expect(await redis.zscore(feedKeys(prefix, NUMBER).active, ID)).toBeNull();
        let status = await ledger.status(ID);
        expect(status?.counts).toMatchObject({ sent: 1, sending: 1, cancelled: 4, queued: 0 });
        expect(status?.finishedAt).toBeUndefined();
        expect(await statuses()).toEqual(['sent', 'sending', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
        // One step for the block: the records themselves were not rewritten.
        expect(await storedRowOf(redis, campaignLedgerKeys(prefix, NUMBER, ID).rows, 4)).toMatchObject({ s: 'queued' });

        // Run again (a crashed `cancel` re-run): nothing more, counted once.
        expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 0 });
        expect(await counts()).toMatchObject({ sent: 1, sending: 1, cancelled: 4, queued: 0 });
        expect((await feed()).jobs).toEqual([]);
        // The send in flight keeps its answer and is the last one: the campaign completes.
        expect(await ledger.settle(job(2), { status: 'sent', wamid: 'w2' })).toEqual({
          status: 'sent',
          completedCampaign: true,
          pausedCampaign: false,
        });
        status = await ledger.status(ID);
        expect(status?.state).toBe('cancelled');
        expect(status?.finishedAt).toBeTypeOf('number');
        expect(status?.counts).toMatchObject({ total: 6, sent: 2, cancelled: 4, queued: 0, sending: 0 });
      },
    );

    it('completes the campaign at once when nothing was fed; a fed row completes it at its claim', async () => {
      await campaign(3, { fed: 0 });
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled', cancelled: 3 });
      let status = await ledger.status(ID);
      expect(status).toMatchObject({ state: 'cancelled', counts: { total: 3, queued: 0, cancelled: 3 } });
      expect(status?.finishedAt).toBeTypeOf('number');
      expect(await statuses()).toEqual(['cancelled', 'cancelled', 'cancelled']);

      await campaign(3, { id: 'fed' });
      await ledger.claim(job(1, undefined, 'fed'));
      await ledger.settle(job(1, undefined, 'fed'), { status: 'sent', wamid: 'w1' });
      expect(await ledger.cancel('fed')).toEqual({ outcome: 'cancelled', cancelled: 0 });
      expect(await ledger.claim(job(2, undefined, 'fed'))).toEqual({ outcome: 'settled', status: 'cancelled' });
      expect((await ledger.status('fed'))?.finishedAt).toBeUndefined();
      expect(await ledger.claim(job(3, undefined, 'fed'))).toEqual({ outcome: 'settled', status: 'cancelled', completedCampaign: true });
      status = await ledger.status('fed');
      expect(status?.finishedAt).toBeTypeOf('number');
      expect(status?.counts).toMatchObject({ total: 3, sent: 1, cancelled: 2, queued: 0 });
    });
  });

  describe('markForRetry', () => {
    it('moves nothing on a cancelled campaign (a cancel may land between the command’s check and its pages)', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      await ledger.cancel(ID);
      await ledger.claim(job(2));
      expect(await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: true })).toEqual({
        requeued: 0,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
      });
      expect((await row(1)).status).toBe('failed');
      expect(await backlog()).toEqual([]);
      expect((await ledger.status(ID))?.finishedAt).toBeTypeOf('number');
    });

    it(
      'chooses failed rows by code, or any failed, or unknown; counts rows without stored ' +
        'values; reopens a finished campaign and feeds it again',
      async () => {
        await campaign(6, { extra: [{ row: 7, phone: phoneNumber(7), status: 'rejected', errorCode: 'PHONE_INVALID', errorDetail: 'x' }] });
        const settle = async (n: number, s: Parameters<RedisLedger['settle']>[1]) => {
          await ledger.claim(job(n));
          await ledger.settle(job(n), s);
        };
        await settle(1, { status: 'failed', errorCode: '131000', errorDetail: 'Something went wrong' });
        await settle(2, { status: 'failed', errorCode: '132000', errorDetail: 'params' });
        await settle(3, { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'maybe' });
        await settle(4, { status: 'sent', wamid: 'w4' });
        await settle(5, { status: 'failed', errorCode: '131000', errorDetail: 'Something went wrong' });
        await settle(6, { status: 'failed', errorCode: '131000', errorDetail: 'Something went wrong' });
        // Row 5 was written by a version that kept its values only in the job: it has none to send again.
        const rowsKey = campaignLedgerKeys(prefix, NUMBER, ID).rows;
        const five = { ...(await storedRowOf(redis, rowsKey, 5)) } as Record<string, unknown>;
        delete five.v;
        await putStoredRow(redis, rowsKey, 5, JSON.stringify(five));
        expect((await ledger.status(ID))?.state).toBe('completed');
        // Nothing left to feed: the feed drops the campaign from the number's active set.
        expect((await feed()).jobs).toEqual([]);
        expect(await redis.zscore(feedKeys(prefix, NUMBER).active, ID)).toBeNull();

        expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: false, unknown: false })).toEqual({
          requeued: 0,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await ledger.status(ID))?.state).toBe('completed');

        // Only rows 1..5 in this page: row 6 stays failed.
        expect(await ledger.markForRetry(ID, 1, 5, { codes: ['131000'], failed: true, unknown: false })).toEqual({
          requeued: 1,
          noPayload: 1,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        let status = await ledger.status(ID);
        expect(status?.state).toBe('running');
        expect(status?.finishedAt).toBeUndefined();
        expect(status?.counts).toMatchObject({ queued: 1, failed: 3, unknown: 1, sent: 1, rejected: 1 });
        expect(await owner(1)).toBe(1);
        expect(await backlog()).toEqual(['1:1']);
        expect(await redis.zscore(feedKeys(prefix, NUMBER).active, ID)).toBe('1');
        // Again: row 1 is queued now, not failed; row 5 still has no values.
        expect(await ledger.markForRetry(ID, 1, 5, { codes: ['131000'], failed: true, unknown: false })).toEqual({
          requeued: 0,
          noPayload: 1,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        // Unknown rows only when asked for.
        expect(await ledger.markForRetry(ID, 1, 7, { codes: ['131000', '132000'], failed: false, unknown: true })).toEqual({
          requeued: 1,
          noPayload: 0,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        expect((await row(3)).status).toBe('queued');
        // Any failed row: 2 and 6 (5 has no values).
        expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: true, unknown: false })).toEqual({
          requeued: 2,
          noPayload: 1,
          held: 0,
          heldUntil: 0,
          usMarketing: 0,
          optedOut: 0,
          experiment: 0,
        });
        status = await ledger.status(ID);
        expect(status?.counts).toMatchObject({ queued: 4, failed: 1, unknown: 0, sent: 1, rejected: 1, total: 7 });
        // Each page appends to the end of the backlog, in row order within the page.
        expect(await backlog()).toEqual(['1:1', '3:1', '2:1', '6:1']);
        expect((await feed()).jobs).toEqual([job(1, 1), job(3, 1), job(2, 1), job(6, 1)]);
        // The old jobs are stale now.
        expect(await ledger.claim(job(2))).toEqual({ outcome: 'stale' });
      },
    );

    it('a failed retry keeps the newer job, and the next retry gives the row the next owner number', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false });
      expect((await feed()).jobs).toEqual([job(1, 1)]);
      await ledger.claim(job(1, 1));
      await ledger.settle(job(1, 1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      expect(await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false })).toEqual({
        requeued: 1,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
      });
      expect(await backlog()).toEqual(['1:2']);
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'stale' });
      expect((await feed()).jobs).toEqual([job(1, 2)]);
      expect(await ledger.claim(job(1, 2))).toMatchObject({ outcome: 'claimed', attempt: 3 });
    });
  });

  describe('parking at the claim', () => {
    it(
      'only a queued row owned by the job parks, and only while paused; parked rows leave ' +
        'the window and wait at the front of the backlog',
      async () => {
        await campaign(6, { fed: 4 });
        // Running: the owner claims.
        expect((await ledger.claim(job(1))).outcome).toBe('claimed');
        await ledger.pause(ID, 'x');
        // Sending: in doubt, not parked. Another owner's job: stale.
        expect(await ledger.claim(job(1))).toEqual({ outcome: 'in-doubt', attempts: 1 });
        expect(await ledger.claim(job(4, 7))).toEqual({ outcome: 'stale' });
        expect(await owner(4)).toBe(0);
        expect(await ledger.claim(job(2))).toEqual({ outcome: 'parked' });
        expect(await ledger.claim(job(3))).toEqual({ outcome: 'parked' });
        expect(await row(2)).toMatchObject({ status: 'queued', requeue: 1, attempts: 0 });
        expect(await backlogParkedFirst(2)).toEqual(['2:1', '3:1', '5', '6']);
        expect(await windowIds()).toEqual([sendJobId(ID, 1), sendJobId(ID, 4)]);
        expect(await counts()).toMatchObject({ queued: 5, sending: 1 });
        // The parked jobs, if they run anyway, are stale.
        expect(await ledger.claim(job(2))).toEqual({ outcome: 'stale' });
        expect(await backlogParkedFirst(2)).toEqual(['2:1', '3:1', '5', '6']);
      },
    );
  });

  describe('resume', () => {
    it('enqueues nothing itself: the feeder feeds the parked rows first, under new job numbers, then the rest of the backlog', async () => {
      await campaign(4, { fed: 2 });
      await ledger.pause(ID, 'x');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'parked' });
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'parked' });
      // Paused: the feed gives nothing, and the campaign keeps its place in the active set.
      expect(await feed()).toEqual({ jobs: [], refresh: [], events: [] });
      expect(await redis.zscore(feedKeys(prefix, NUMBER).active, ID)).toBe('1');
      expect(await ledger.resume(ID)).toEqual({ outcome: 'resumed' });
      expect(await backlogParkedFirst(2)).toEqual(['1:1', '2:1', '3', '4']);
      const { jobs } = await feed();
      expect(jobs.slice(0, 2).sort((a, b) => a.row - b.row)).toEqual([job(1, 1), job(2, 1)]);
      expect(jobs.slice(2)).toEqual([job(3), job(4)]);
      expect(await backlog()).toEqual([]);
      for (const j of jobs) expect(await ledger.claim(j)).toMatchObject({ outcome: 'claimed', attempt: 1 });
    });
  });

  describe('status', () => {
    it('ingesting, paused (while ingesting too), running, completed, cancelled', async () => {
      await campaign(1, { finish: false });
      expect(await ledger.status(ID)).toMatchObject({ state: 'ingesting', finishedAt: undefined, pausedReason: undefined });
      await ledger.pause(ID, 'hold on');
      const paused = await ledger.status(ID);
      expect(paused).toMatchObject({ state: 'paused', pausedReason: 'hold on' });
      expect(paused?.pausedAt).toBeGreaterThanOrEqual(paused?.createdAt ?? Infinity);
      await ledger.resume(ID);
      expect((await ledger.status(ID))?.state).toBe('ingesting');
      await ledger.finishIngest(ID);
      expect((await ledger.status(ID))?.state).toBe('running');
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'sent', wamid: 'w' });
      const done = await ledger.status(ID);
      expect(done?.state).toBe('completed');
      expect(done?.finishedAt).toBeTypeOf('number');

      // Its row fed (its job still to run): cancelled, not finished until the claim.
      await campaign(1, { id: 'other' });
      await ledger.cancel('other');
      expect(await ledger.status('other')).toMatchObject({ state: 'cancelled', finishedAt: undefined });
      expect(await ledger.status(ID)).toMatchObject({ state: 'completed' });
    });
  });
});
