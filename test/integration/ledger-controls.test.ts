import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger, type AutoPauseSettings } from '../../src/redis/redis-ledger.js';
import { phoneNumber } from '../support/csv-files.js';
import { ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The campaign controls as the ledger decides them (src/redis/ledger-scripts.ts), on a real
 * Redis under a fresh prefix: which job may claim a row and what it gets, which answers
 * count, what a halt, a pause, a cancel and a retry move, and the error-spike brake.
 */

const ID = 'ctl';
const TOKEN_DETAIL = 'Error validating access token: Session has expired.';

const definition = (id = ID): CampaignDefinition => ledgerTestDefinition(id);

/** The producer's job for a row (requeue absent), or the job of its n-th requeue. */
function job(row: number, requeue?: number, id = ID): SendJob {
  const base: SendJob = { campaignId: id, row, to: phoneNumber(row), values: [`Name${row}`, `A-${row}`] };
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

  /** A campaign of `queued` rows 1..n (plus any extra ingested rows), ingest finished unless told otherwise. */
  async function campaign(n: number, options: { extra?: IngestedRow[]; finish?: boolean; on?: RedisLedger; id?: string } = {}): Promise<void> {
    const l = options.on ?? ledger;
    const id = options.id ?? ID;
    await l.createCampaign(definition(id));
    const rows: IngestedRow[] = Array.from({ length: n }, (_, i) => queuedRow(i + 1));
    await l.recordIngested(id, '106540352242922', [...rows, ...(options.extra ?? [])]);
    if (options.finish !== false) await l.finishIngest(id);
  }

  async function row(n: number, id = ID): Promise<RowRecord> {
    for await (const page of ledger.rows(id)) {
      const found = page.find((r) => r.row === n);
      if (found !== undefined) return found;
    }
    throw new Error(`no row ${n}`);
  }

  /** The row's owner number as stored (k); 0 = the producer's job. */
  async function owner(n: number, id = ID): Promise<number> {
    const json = await redis.hget(`${prefix}:campaign:${id}:rows`, String(n));
    if (json === null) throw new Error(`no row ${n}`);
    return (JSON.parse(json) as { k?: number }).k ?? 0;
  }

  async function setAside(id = ID): Promise<Map<number, SendJob>> {
    const out = new Map<number, SendJob>();
    let cursor = '0';
    do {
      const page = await ledger.takeRequeued(id, cursor);
      cursor = page.cursor;
      for (const entry of page.entries) out.set(entry.row, entry.job);
    } while (cursor !== '0');
    return out;
  }

  const payload = async (n: number, id = ID): Promise<string | null> => redis.hget(`${prefix}:campaign:${id}:payloads`, String(n));
  const counts = async (id = ID) => (await ledger.status(id))?.counts;

  describe('claim', () => {
    it('a settled row answers before anything else, even to a job that no longer owns it', async () => {
      await campaign(1);
      expect(await ledger.claim(job(1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.1' });
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'sent' });
      expect(await ledger.claim(job(1, 7))).toEqual({ outcome: 'settled', status: 'sent' });
      await ledger.cancel(ID);
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'sent' });
    });

    it('a job that is not the row’s owner is stale, even while the owner’s attempt is in doubt', async () => {
      await campaign(1);
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(1);
      await ledger.resume(ID);
      expect(await ledger.claim(job(1, 1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      // The producer's job (k 0) comes back, e.g. a duplicate or a re-run `campaign send`.
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'stale' });
      expect(await ledger.claim(job(1, 2))).toEqual({ outcome: 'stale' });
      // The owner itself sees its own earlier attempt in doubt.
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await counts()).toMatchObject({ sending: 1, queued: 0 });
    });

    it('a row left sending is in doubt even when the campaign is paused or cancelled (never parked, never cancelled)', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await redis.hlen(`${prefix}:campaign:${ID}:requeue`)).toBe(0);
      await ledger.cancel(ID);
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'in-doubt', attempts: 1 });
      expect(await counts()).toMatchObject({ sending: 2, cancelled: 0 });
    });

    it('on a cancelled campaign the owner’s claim cancels the row; the last one completes the campaign', async () => {
      await campaign(2);
      await ledger.cancel(ID);
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'settled', status: 'cancelled' });
      expect((await ledger.status(ID))?.finishedAt).toBeUndefined();
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'settled', status: 'cancelled' });
      const status = await ledger.status(ID);
      expect(status?.state).toBe('cancelled');
      expect(status?.counts).toMatchObject({ total: 2, queued: 0, cancelled: 2 });
      expect(status?.finishedAt).toBeTypeOf('number');
      expect((await row(1)).status).toBe('cancelled');
    });

    it('on a paused campaign the row stays queued, gets owner k+1, and its job is set aside for resume', async () => {
      await campaign(2);
      await ledger.pause(ID, 'test');
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(1);
      expect((await row(1)).status).toBe('queued');
      expect((await row(1)).attempts).toBe(0);
      expect(await setAside()).toEqual(new Map([[1, job(1, 1)]]));
      // Parked again (its k-1 job is stale now; the k 1 job, on a still-paused campaign, parks again).
      expect(await ledger.claim(job(1))).toEqual({ outcome: 'stale' });
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'parked' });
      expect(await owner(1)).toBe(2);
      expect(await setAside()).toEqual(new Map([[1, job(1, 2)]]));
      expect(await counts()).toMatchObject({ queued: 2, sending: 0 });
    });

    it('a running campaign’s owner claims: sending, attempts counted across retries', async () => {
      await campaign(1);
      expect(await ledger.claim(job(1))).toMatchObject({ outcome: 'claimed', attempt: 1 });
      expect(await counts()).toMatchObject({ queued: 0, sending: 1 });
      await ledger.settle(job(1), { status: 'queued', errorCode: '131000', errorDetail: 'try again' });
      expect(await counts()).toMatchObject({ queued: 1, sending: 0 });
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
      expect(await redis.hlen(`${prefix}:wamids`)).toBe(0);
    });

    it('keeps the first final answer: later ones (a shutdown’s unknown included) change nothing', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      expect(await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.first' })).toEqual({ status: 'sent', completedCampaign: true, pausedCampaign: false });
      expect(await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'late' })).toEqual({
        status: 'sent',
        completedCampaign: false,
        pausedCampaign: false,
      });
      expect(await ledger.settle(job(1), { status: 'unknown', errorCode: 'SHUTDOWN_IN_FLIGHT', errorDetail: 'late' })).toMatchObject({ status: 'sent' });
      expect(await ledger.settle(job(1), { status: 'sent', wamid: 'wamid.second' })).toMatchObject({ status: 'sent', completedCampaign: false });
      expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'wamid.first' });
      expect((await row(1)).errorCode).toBeUndefined();
      expect(await counts()).toMatchObject({ sent: 1, failed: 0, unknown: 0 });
      expect(await payload(1)).toBeNull();
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
    });

    it('keeps the job of a failed or unknown row (for retry), not of a sent or retrying one; a requeued row sent leaves none', async () => {
      await campaign(4);
      for (const n of [1, 2, 3, 4]) await ledger.claim(job(n));
      await ledger.settle(job(1), { status: 'failed', errorCode: '132000', errorDetail: 'params' });
      await ledger.settle(job(2), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'maybe' });
      await ledger.settle(job(3), { status: 'sent', wamid: 'wamid.3' });
      await ledger.settle(job(4), { status: 'queued', errorCode: '131000', errorDetail: 'again' });
      expect(JSON.parse((await payload(1)) ?? 'null')).toEqual(job(1));
      expect(JSON.parse((await payload(2)) ?? 'null')).toEqual(job(2));
      expect(await payload(3)).toBeNull();
      expect(await payload(4)).toBeNull();

      expect(await ledger.markForRetry(ID, 1, 4, { codes: [], failed: true, unknown: true })).toEqual({ requeued: 2, noPayload: 0 });
      const jobs = await setAside();
      expect(jobs.get(1)).toEqual(job(1, 1));
      expect(await ledger.claim(job(1, 1))).toMatchObject({ outcome: 'claimed', attempt: 2 });
      await ledger.settle(job(1, 1), { status: 'sent', wamid: 'wamid.1b' });
      expect(await payload(1)).toBeNull();
      expect(await row(1)).toMatchObject({ status: 'sent', wamid: 'wamid.1b' });
      expect((await row(1)).errorCode).toBeUndefined();
      expect(await redis.hget(`${prefix}:wamids`, 'wamid.1b')).toBe(`${ID}/1`);
    });
  });

  describe('halt', () => {
    it('puts the claimed row back to queued under a new owner, sets its job aside, pauses with `code: detail` (the first reason stays)', async () => {
      await campaign(3);
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
      expect(await setAside()).toEqual(new Map([[1, job(1, 1)]]));

      await ledger.halt(job(2), '131031', 'Business account locked');
      expect((await ledger.status(ID))?.pausedReason).toBe(`190: ${TOKEN_DETAIL}`);
      expect([...(await setAside()).keys()].sort()).toEqual([1, 2]);
      // Row 3 never started: its producer's job parks it now.
      expect(await ledger.claim(job(3))).toEqual({ outcome: 'parked' });
    });

    it('does nothing to a row that is not sending or not owned by the job', async () => {
      await campaign(2);
      await ledger.halt(job(1), '190', TOKEN_DETAIL);
      await ledger.claim(job(2));
      await ledger.halt(job(2, 3), '190', TOKEN_DETAIL);
      const status = await ledger.status(ID);
      expect(status?.state).toBe('running');
      expect(status?.counts).toMatchObject({ queued: 1, sending: 1 });
      expect(await redis.hlen(`${prefix}:campaign:${ID}:requeue`)).toBe(0);
    });

    it('on a cancelled campaign cancels the row, and completes the campaign when it was the last open row', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      await ledger.settle(job(2), { status: 'sent', wamid: 'wamid.2' });
      await ledger.cancel(ID);
      expect(await ledger.cancelRows(ID, 1, 2)).toBe(0);
      await ledger.halt(job(1), '190', TOKEN_DETAIL);
      const status = await ledger.status(ID);
      expect(status?.state).toBe('cancelled');
      expect(status?.counts).toMatchObject({ sent: 1, cancelled: 1, sending: 0, queued: 0 });
      expect(await redis.hlen(`${prefix}:campaign:${ID}:requeue`)).toBe(0);
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

    it('pauses on the 3rd failure among the last 10 sends (window 10, share 0.2), with an ERROR_SPIKE reason; resume starts the window empty', async () => {
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
      expect(status?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of the last 10 sends failed permanently \(latest 132000: Number of parameters/);

      // A send in flight that fails afterwards does not pause it "again" or change the reason.
      await braked.claim(job(15));
      expect(await braked.pause(ID, 'x')).toEqual({ outcome: 'already-paused' });
      expect((await braked.settle(job(15), fail)).pausedCampaign).toBe(false);
      expect((await braked.status(ID))?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of/);

      expect((await braked.resume(ID)).outcome).toBe('resumed');
      expect(await redis.exists(`${prefix}:campaign:${ID}:recent`)).toBe(0);
      // Without the reset, 4 failures would still be in the window and row 16 would pause at once.
      expect((await answer(braked, 16, true)).pausedCampaign).toBe(false);
      expect((await answer(braked, 17, true)).pausedCampaign).toBe(false);
      expect((await answer(braked, 18, true)).pausedCampaign).toBe(true);
      status = await braked.status(ID);
      expect(status?.pausedReason).toMatch(/^ERROR_SPIKE: 3 of the last 10/);
    });

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

    it('on a cancelled campaign: pause and resume refuse (cancelled), cancel again is cancelled; cancelling a paused campaign lifts the pause', async () => {
      await campaign(1);
      await ledger.pause(ID, 'x');
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled' });
      expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', pausedReason: undefined });
      expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
      expect(await ledger.resume(ID)).toEqual({ outcome: 'cancelled' });
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled' });
      expect(await ledger.isHeld(ID)).toBe(true);
      // Even once every row is cancelled (finished), it stays `cancelled` for these commands.
      await ledger.cancelRows(ID, 1, 1);
      expect((await ledger.status(ID))?.finishedAt).toBeTypeOf('number');
      expect(await ledger.cancel(ID)).toEqual({ outcome: 'cancelled' });
      expect(await ledger.pause(ID, 'y')).toEqual({ outcome: 'cancelled' });
    });
  });

  describe('cancelRows', () => {
    it('cancels the queued rows of the range (parked ones too, forgetting their set-aside job), leaves rows in flight and answered rows alone', async () => {
      await campaign(5);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'sent', wamid: 'w1' });
      await ledger.claim(job(2));
      await ledger.pause(ID, 'x');
      expect(await ledger.claim(job(3))).toEqual({ outcome: 'parked' });
      await ledger.cancel(ID);
      expect(await ledger.cancelRows(ID, 1, 5)).toBe(3);
      expect(await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await row(n)).status))).toEqual(['sent', 'sending', 'cancelled', 'cancelled', 'cancelled']);
      expect(await redis.hlen(`${prefix}:campaign:${ID}:requeue`)).toBe(0);
      let status = await ledger.status(ID);
      expect(status?.counts).toMatchObject({ sent: 1, sending: 1, cancelled: 3, queued: 0 });
      expect(status?.finishedAt).toBeUndefined();
      // Run again (a crashed `cancel` re-run): nothing more.
      expect(await ledger.cancelRows(ID, 1, 5)).toBe(0);
      // The send in flight keeps its answer and is the last one: the campaign completes.
      expect(await ledger.settle(job(2), { status: 'sent', wamid: 'w2' })).toEqual({ status: 'sent', completedCampaign: true, pausedCampaign: false });
      status = await ledger.status(ID);
      expect(status?.state).toBe('cancelled');
      expect(status?.finishedAt).toBeTypeOf('number');
    });

    it('completes the campaign when its page cancels the last open row', async () => {
      await campaign(3);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'sent', wamid: 'w1' });
      await ledger.cancel(ID);
      expect(await ledger.cancelRows(ID, 1, 2)).toBe(1);
      expect((await ledger.status(ID))?.finishedAt).toBeUndefined();
      expect(await ledger.cancelRows(ID, 3, 3)).toBe(1);
      const status = await ledger.status(ID);
      expect(status?.finishedAt).toBeTypeOf('number');
      expect(status?.counts).toMatchObject({ total: 3, sent: 1, cancelled: 2 });
    });
  });

  describe('markForRetry', () => {
    it('moves nothing on a cancelled campaign (a cancel may land between the command’s check and its pages)', async () => {
      await campaign(2);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      await ledger.cancel(ID);
      await ledger.cancelRows(ID, 1, 2);
      expect(await ledger.markForRetry(ID, 1, 2, { codes: [], failed: true, unknown: true })).toEqual({ requeued: 0, noPayload: 0 });
      expect((await row(1)).status).toBe('failed');
      expect((await ledger.status(ID))?.finishedAt).toBeTypeOf('number');
    });

    it('chooses failed rows by code, or any failed, or unknown; counts rows without a stored job; reopens a finished campaign', async () => {
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
      // Row 5 failed before jobs were kept (a ledger from an earlier version).
      await redis.hdel(`${prefix}:campaign:${ID}:payloads`, '5');
      expect((await ledger.status(ID))?.state).toBe('completed');

      expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: false, unknown: false })).toEqual({ requeued: 0, noPayload: 0 });
      expect((await ledger.status(ID))?.state).toBe('completed');

      // Only rows 1..5 in this page: row 6 stays failed.
      expect(await ledger.markForRetry(ID, 1, 5, { codes: ['131000'], failed: true, unknown: false })).toEqual({ requeued: 1, noPayload: 1 });
      let status = await ledger.status(ID);
      expect(status?.state).toBe('running');
      expect(status?.finishedAt).toBeUndefined();
      expect(status?.counts).toMatchObject({ queued: 1, failed: 3, unknown: 1, sent: 1, rejected: 1 });
      expect(await owner(1)).toBe(1);
      expect(await setAside()).toEqual(new Map([[1, job(1, 1)]]));
      expect(await payload(1)).toBeNull();
      // Again: row 1 is queued now, not failed; row 5 still has no job.
      expect(await ledger.markForRetry(ID, 1, 5, { codes: ['131000'], failed: true, unknown: false })).toEqual({ requeued: 0, noPayload: 1 });
      // Unknown rows only when asked for.
      expect(await ledger.markForRetry(ID, 1, 7, { codes: ['131000', '132000'], failed: false, unknown: true })).toEqual({ requeued: 1, noPayload: 0 });
      expect((await row(3)).status).toBe('queued');
      // Any failed row: 2 and 6 (5 has no job).
      expect(await ledger.markForRetry(ID, 1, 7, { codes: [], failed: true, unknown: false })).toEqual({ requeued: 2, noPayload: 1 });
      status = await ledger.status(ID);
      expect(status?.counts).toMatchObject({ queued: 4, failed: 1, unknown: 0, sent: 1, rejected: 1, total: 7 });
      expect([...(await setAside()).entries()].sort(([a], [b]) => a - b)).toEqual([
        [1, job(1, 1)],
        [2, job(2, 1)],
        [3, job(3, 1)],
        [6, job(6, 1)],
      ]);
      // The old jobs are stale now.
      expect(await ledger.claim(job(2))).toEqual({ outcome: 'stale' });
    });

    it('a failed retry keeps the newer job, and the next retry gives the row the next owner number', async () => {
      await campaign(1);
      await ledger.claim(job(1));
      await ledger.settle(job(1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false });
      await ledger.claim(job(1, 1));
      await ledger.settle(job(1, 1), { status: 'failed', errorCode: '131000', errorDetail: 'x' });
      expect(JSON.parse((await payload(1)) ?? 'null')).toEqual(job(1, 1));
      expect(await ledger.markForRetry(ID, 1, 1, { codes: [], failed: true, unknown: false })).toEqual({ requeued: 1, noPayload: 0 });
      expect(await setAside()).toEqual(new Map([[1, job(1, 2)]]));
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'stale' });
      expect(await ledger.claim(job(1, 2))).toMatchObject({ outcome: 'claimed', attempt: 3 });
    });
  });

  describe('parkWaiting', () => {
    it('only on a paused campaign, only rows still queued, owned by the job and not yet set aside', async () => {
      await campaign(4);
      expect(await ledger.parkWaiting(ID, [job(1)])).toEqual([]);
      expect(await owner(1)).toBe(0);

      await ledger.claim(job(2)); // sending: not waiting
      await ledger.pause(ID, 'x');
      expect((await ledger.claim(job(3))).outcome).toBe('parked'); // already set aside, owner 1
      const parked = await ledger.parkWaiting(ID, [job(1), job(2), job(3), job(4, 7)]);
      expect(parked.map((j) => j.row)).toEqual([1]);
      expect(await owner(1)).toBe(1);
      expect((await row(1)).requeue).toBe(1);
      expect(await owner(4)).toBe(0);
      const aside = await setAside();
      expect([...aside.keys()].sort()).toEqual([1, 3]);
      expect(aside.get(1)).toMatchObject({ row: 1, requeue: 1, values: ['Name1', 'A-1'] });
      // The old job, if it runs anyway, is stale.
      expect((await ledger.claim(job(1))).outcome).toBe('stale');
    });
  });

  describe('takeRequeued / requeued', () => {
    it('forgets the enqueued entries, but not one set aside again under a newer owner meanwhile', async () => {
      await campaign(2);
      await ledger.pause(ID, 'x');
      await ledger.claim(job(1));
      await ledger.claim(job(2));
      const page = await ledger.takeRequeued(ID, '0');
      expect(page.cursor).toBe('0');
      const taken = [...page.entries].sort((a, b) => a.row - b.row);
      expect(taken).toEqual([
        { row: 1, job: job(1, 1) },
        { row: 2, job: job(2, 1) },
      ]);
      // Row 1's new job runs before `requeued` is recorded, on a campaign paused again: parked under k 2.
      expect(await ledger.claim(job(1, 1))).toEqual({ outcome: 'parked' });
      await ledger.requeued(ID, taken);
      expect(await setAside()).toEqual(new Map([[1, job(1, 2)]]));
      await ledger.requeued(ID, [{ row: 1, job: job(1, 2) }]);
      expect(await setAside()).toEqual(new Map());
      await ledger.requeued(ID, []);
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

      await campaign(1, { id: 'other' });
      await ledger.cancel('other');
      expect(await ledger.status('other')).toMatchObject({ state: 'cancelled', finishedAt: undefined });
      expect(await ledger.status(ID)).toMatchObject({ state: 'completed' });
    });
  });
});
