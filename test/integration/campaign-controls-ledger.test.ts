import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignControls, type RetryProgress } from '../../src/campaigns/control/campaign-controls.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { TestClock } from '../support/test-clock.js';
import { ledgersPerTest, type TestLedger } from '../support/test-ledger.js';
import { UNIT_NUMBER } from '../support/unit-campaigns.js';

/**
 * `campaign pause | resume | cancel | reschedule | retry` (src/campaigns/control/campaign-controls.ts)
 * on the ledger (a real Redis, its clock stopped): what each command refuses, with which
 * error, and what it reports.
 */

const ID = 'c1';
const HOUR = 3_600_000;
const job = (row: number, requeue?: number): SendJob =>
  requeue === undefined ? { campaignId: ID, row } : { campaignId: ID, row, requeue };

describe('CampaignControls (ledger on a real Redis)', () => {
  const openLedger = ledgersPerTest('controls');
  let opened: TestLedger;
  let clock: TestClock;
  let ledger: RedisLedger;
  let controls: CampaignControls;

  beforeEach(() => {
    opened = openLedger({}, TestClock.stopped(Date.parse('2026-12-01T08:00:00Z')));
    ({ ledger, clock } = opened);
    controls = new CampaignControls({ ledger });
  });

  /** A campaign of `rows` queued rows, ingest finished, `fed` of them fed (all by default). */
  async function campaign(rows: number, options: { fed?: number; startsAt?: number; expiresAt?: number } = {}): Promise<void> {
    const definition = ledgerTestDefinition(ID);
    if (options.startsAt !== undefined) definition.startsAt = options.startsAt;
    if (options.expiresAt !== undefined) definition.expiresAt = options.expiresAt;
    await ledger.createCampaign(definition);
    for (let from = 1; from <= rows; from += 500) {
      await ledger.recordIngested(
        ID,
        UNIT_NUMBER,
        Array.from({ length: Math.min(500, rows - from + 1) }, (_, i) => queuedRow(from + i)),
      );
    }
    await ledger.finishIngest(ID);
    if (options.fed !== 0) await feed(options.fed ?? rows);
  }

  const feed = (size: number) => ledger.feed(UNIT_NUMBER, { windowSize: size, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0 });

  async function answerAll(rows: number, answer: (row: number) => 'sent' | 'failed' | 'unknown'): Promise<void> {
    for (let row = 1; row <= rows; row++) {
      await ledger.claim(job(row), UNIT_NUMBER);
      const status = answer(row);
      await ledger.settle(
        job(row),
        status === 'sent' ? { status, wamid: `w${row}` } : { status, errorCode: row % 2 === 0 ? '131026' : '131000', errorDetail: 'x' },
        UNIT_NUMBER,
      );
    }
  }

  describe('pause', () => {
    it('pauses with the operator’s reason, or says it already was', async () => {
      await campaign(2);
      expect(await controls.pause(ID)).toEqual({ alreadyPaused: false });
      expect(await ledger.status(ID)).toMatchObject({ state: 'paused', pausedReason: 'paused by the operator', pausedAt: clock.now() });
      expect(await controls.pause(ID, 'another reason')).toEqual({ alreadyPaused: true });
      expect((await ledger.status(ID))?.pausedReason).toBe('paused by the operator');
      // The rows already fed park at their claim.
      expect(await ledger.claim(job(1), UNIT_NUMBER)).toEqual({ outcome: 'parked' });
    });

    it('refuses a campaign that does not exist (CAMPAIGN_NOT_FOUND), is cancelled or has finished (CAMPAIGN_STATE_CONFLICT)', async () => {
      await expect(controls.pause('nope')).rejects.toMatchObject({
        code: 'CAMPAIGN_NOT_FOUND',
        message: expect.stringContaining('No campaign nope') as unknown,
      });
      await campaign(1);
      await answerAll(1, () => 'sent');
      await expect(controls.pause(ID)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringMatching(/^Cannot pause campaign c1: it is completed \(it has finished; see `campaign report`\)$/) as unknown,
      });
      const other = new CampaignControls({ ledger: openLedger().ledger });
      await expect(other.pause(ID)).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
    });

    it('refuses a cancelled campaign, saying how to send its unsent rows', async () => {
      await campaign(1, { fed: 0 });
      await controls.cancel(ID);
      await expect(controls.pause(ID)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringContaining(
          'it is cancelled (a cancelled campaign stays cancelled; to send its unsent rows, send the file under a new --campaign ID',
        ) as unknown,
      });
    });
  });

  describe('resume', () => {
    it('lifts a pause, or says there was none; the parked rows are fed again first', async () => {
      await campaign(3, { fed: 2 });
      expect(await controls.resume(ID)).toEqual({ wasPaused: false });
      await controls.pause(ID);
      await ledger.claim(job(2), UNIT_NUMBER);
      expect(await controls.resume(ID)).toEqual({ wasPaused: true });
      expect((await ledger.status(ID))?.state).toBe('running');
      expect((await feed(10)).jobs).toEqual([job(2, 1), job(3)]);
    });

    it('refuses a missing or cancelled campaign; a completed one has nothing to resume', async () => {
      await expect(controls.resume('nope')).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
      await campaign(1, { fed: 0 });
      await controls.cancel(ID);
      await expect(controls.resume(ID)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringMatching(/^Cannot resume campaign c1: it is cancelled/) as unknown,
      });
    });
  });

  describe('cancel', () => {
    it('cancels the backlog at once and says how many rows; rows fed are cancelled at their claim', async () => {
      await campaign(5, { fed: 2 });
      expect(await controls.cancel(ID)).toEqual({ cancelled: 3, alreadyCancelled: false, reason: undefined, finishedAt: undefined });
      expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', counts: { cancelled: 3, queued: 2 } });
    });

    it('a second cancel changes nothing and says the campaign was already cancelled, with why and when it ended when known', async () => {
      await campaign(3, { fed: 0 });
      await controls.cancel(ID);
      const ended = (await ledger.status(ID))?.finishedAt;
      expect(ended).toBe(clock.now());
      clock.advance(HOUR);
      expect(await controls.cancel(ID)).toEqual({ cancelled: 0, alreadyCancelled: true, reason: undefined, finishedAt: ended });
      expect(await ledger.status(ID)).toMatchObject({ state: 'cancelled', counts: { cancelled: 3 }, finishedAt: ended });
    });

    it('refuses a missing or finished campaign', async () => {
      await expect(controls.cancel('nope')).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
      await campaign(1);
      await answerAll(1, () => 'failed');
      await expect(controls.cancel(ID)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringMatching(/^Cannot cancel campaign c1: it is completed/) as unknown,
      });
    });
  });

  describe('reschedule', () => {
    it('moves a start that has not come', async () => {
      await campaign(1, { fed: 0, startsAt: clock.now() + HOUR });
      await controls.reschedule(ID, clock.now() + 2 * HOUR);
      expect(await ledger.status(ID)).toMatchObject({ state: 'scheduled', startsAt: clock.now() + 2 * HOUR });
    });

    it('refuses a start at or after the expiry (every row would expire unsent), before asking the ledger', async () => {
      await campaign(1, { fed: 0, startsAt: clock.now() + HOUR, expiresAt: clock.now() + 3 * HOUR });
      await expect(controls.reschedule(ID, clock.now() + 3 * HOUR)).rejects.toMatchObject({
        code: 'OPTION_INVALID',
        message: expect.stringContaining("is not before the campaign's expiry") as unknown,
      });
      expect((await ledger.status(ID))?.startsAt).toBe(clock.now() + HOUR);
      await controls.reschedule(ID, clock.now() + 3 * HOUR - 1);
      expect((await ledger.status(ID))?.startsAt).toBe(clock.now() + 3 * HOUR - 1);
    });

    it('refuses a campaign that has started sending, pointing to pause; a missing, cancelled or completed one', async () => {
      await expect(controls.reschedule('nope', clock.now())).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
      await campaign(2, { fed: 1 });
      await expect(controls.reschedule(ID, clock.now() + HOUR)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: 'Cannot reschedule campaign c1: it has started sending; `campaign pause c1` stops it for now',
      });
      await controls.cancel(ID);
      await expect(controls.reschedule(ID, clock.now() + HOUR)).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringMatching(/it is cancelled/) as unknown,
      });
    });
  });

  describe('retry', () => {
    it('refuses a purged campaign (CAMPAIGN_PURGED): its rows are gone, there is nothing to send again', async () => {
      await campaign(2);
      await answerAll(2, () => 'failed');
      await ledger.purge(ID);
      await expect(controls.retry(ID, { codes: [], failed: true, unknown: false })).rejects.toMatchObject({
        code: 'CAMPAIGN_PURGED',
        message: expect.stringMatching(
          /^Cannot retry campaign c1: it was purged at 2026-12-01T08:00:00\.000Z, so its rows \(numbers and values\) are gone/,
        ) as unknown,
      });
    });

    it('walks the campaign in pages of 1,000 rows, reporting progress, and requeues the chosen rows once', async () => {
      await campaign(2500);
      await answerAll(2500, (row) => (row % 500 === 0 ? 'failed' : row % 700 === 0 ? 'unknown' : 'sent'));
      const progress: RetryProgress[] = [];
      expect(await controls.retry(ID, { codes: [], failed: true, unknown: false }, (p) => progress.push(p))).toEqual({
        requeued: 5,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
        paused: false,
      });
      expect(progress).toEqual([
        { scanned: 1000, total: 2500, requeued: 2 },
        { scanned: 2000, total: 2500, requeued: 4 },
        { scanned: 2500, total: 2500, requeued: 5 },
      ]);
      // Run again: the requeued rows are queued now, not failed.
      expect(await controls.retry(ID, { codes: [], failed: true, unknown: false })).toMatchObject({ requeued: 0 });
      expect(await controls.retry(ID, { codes: [], failed: false, unknown: true })).toMatchObject({ requeued: 3 });
      expect((await feed(10_000)).jobs).toEqual([
        ...[500, 1000, 1500, 2000, 2500].map((row) => job(row, 1)),
        job(700, 1),
        job(1400, 1),
        job(2100, 1),
      ]);
      expect((await ledger.status(ID))?.state).toBe('running');
    });

    it('chooses failed rows by their code', async () => {
      await campaign(4);
      await answerAll(4, () => 'failed');
      expect(await controls.retry(ID, { codes: ['131026'], failed: true, unknown: false })).toEqual({
        requeued: 2,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
        paused: false,
      });
      expect((await feed(10)).jobs).toEqual([job(2, 1), job(4, 1)]);
    });

    it('never puts back the US rows of a MARKETING campaign that failed 131049, unless it was sent with --allow-us-marketing', async () => {
      const phones = ['+12125550101', '+14165550102'];
      for (const [id, allow] of [
        ['c-us', false],
        ['c-us-allowed', true],
      ] as const) {
        await ledger.createCampaign({
          ...ledgerTestDefinition(id),
          category: 'MARKETING',
          ...(allow ? { allowUsMarketing: true as const } : {}),
        });
        await ledger.recordIngested(
          id,
          UNIT_NUMBER,
          phones.map((phone, i) => queuedRow(i + 1, phone)),
        );
        await ledger.finishIngest(id);
      }
      const jobs = (await feed(10)).jobs;
      expect(jobs).toHaveLength(4);
      for (const fed of jobs) {
        await ledger.claim(fed, UNIT_NUMBER);
        await ledger.settle(fed, { status: 'failed', errorCode: '131049', errorDetail: 'x' }, UNIT_NUMBER);
      }
      clock.advance(25 * HOUR);
      const selection = { codes: [], failed: true, unknown: false };
      expect(await controls.retry('c-us', selection)).toMatchObject({ requeued: 1, held: 0, usMarketing: 1 });
      expect(await controls.retry('c-us-allowed', selection)).toMatchObject({ requeued: 2, held: 0, usMarketing: 0 });
    });

    it('on a paused campaign the rows wait for resume, and says so', async () => {
      await campaign(2);
      await answerAll(1, () => 'failed');
      await controls.pause(ID);
      expect(await controls.retry(ID, { codes: [], failed: true, unknown: false })).toEqual({
        requeued: 1,
        noPayload: 0,
        held: 0,
        heldUntil: 0,
        usMarketing: 0,
        optedOut: 0,
        experiment: 0,
        paused: true,
      });
      expect((await feed(10)).jobs).toEqual([]);
    });

    it('refuses a missing or cancelled campaign', async () => {
      await expect(controls.retry('nope', { codes: [], failed: true, unknown: true })).rejects.toMatchObject({
        code: 'CAMPAIGN_NOT_FOUND',
      });
      await campaign(1, { fed: 0 });
      await controls.cancel(ID);
      await expect(controls.retry(ID, { codes: [], failed: true, unknown: true })).rejects.toMatchObject({
        code: 'CAMPAIGN_STATE_CONFLICT',
        message: expect.stringMatching(/^Cannot retry campaign c1: it is cancelled/) as unknown,
      });
    });
  });
});
