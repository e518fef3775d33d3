import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger, campaignLedgerKeys, sentGuardKeys } from '../../src/redis/ledger/redis-ledger.js';
import { guardEntries, putGuardEntry, testFingerprint } from '../support/sent-guard.js';
import { phoneNumber } from '../support/csv-files.js';
import { feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { putStoredRow } from '../support/stored-rows.js';

const NUMBER = '106540352242922';
const HOUR = 3_600_000;

/**
 * The ledger rules behind safe re-runs, on a real Redis: the duplicate-send guard (claim and
 * ingest), a rejected row re-checked by a later run, an interrupted ingest and its
 * continuation, and what the claim hands the worker. As in production, rows are fed (popped
 * off their campaign's backlog) before their jobs claim them.
 */
describe('RedisLedger: re-run rules (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('rerun-rules');
    ledger = new RedisLedger(redis, prefix, { duplicateWindowMs: 24 * HOUR });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** A job as the feeder makes it (campaign, row, job number). */
  const job = (campaignId: string, row: number, requeue?: number): SendJob => ({
    campaignId,
    row,
    ...(requeue === undefined ? {} : { requeue }),
  });

  /** Creates the campaign, records the rows, finishes the ingest (unless told not to) and feeds its queued rows. */
  async function campaign(id: string, rows: IngestedRow[], finish = true, feed = true) {
    await ledger.createCampaign(ledgerTestDefinition(id));
    const result = await ledger.recordIngested(id, NUMBER, rows);
    if (finish) await ledger.finishIngest(id);
    if (feed) await feedAll(ledger, NUMBER);
    return result;
  }

  const backlog = async (id: string): Promise<string[]> => redis.lrange(campaignLedgerKeys(prefix, NUMBER, id).pending, 0, -1);

  it('a claim hands over the row’s recipient, values and header link, not the job’s', async () => {
    const row: IngestedRow = {
      row: 1,
      phone: phoneNumber(1),
      status: 'queued',
      message: { values: ['Ana', 'A-1'], headerLink: 'https://x.test/a.png', fingerprint: 'fp-a' },
    };
    await campaign('c1', [row]);
    // A job of an older version still carries a recipient and values: they are ignored.
    expect(await ledger.claim({ ...job('c1', 1), to: '+10000000000', values: ['from the job'] }, NUMBER)).toStrictEqual({
      outcome: 'claimed',
      attempt: 1,
      row: { to: phoneNumber(1), values: ['Ana', 'A-1'], headerLink: 'https://x.test/a.png' },
    });
  });

  it('a message another row claimed within the window is skipped ALREADY_SENT at the claim, naming that campaign and row', async () => {
    await campaign('c1', [queuedRow(1)]);
    await campaign('c2', [queuedRow(1, phoneNumber(9))]);
    await putStoredRow(
      redis,
      `${prefix}:{${NUMBER}}:campaign:c2:rows`,
      1,
      JSON.stringify({ p: phoneNumber(1), s: 'queued', v: [], f: testFingerprint(`fp-${phoneNumber(1)}`) }),
    );

    expect(await ledger.claim(job('c1', 1), NUMBER)).toMatchObject({ outcome: 'claimed' });
    expect(await ledger.claim(job('c2', 1), NUMBER)).toStrictEqual({ outcome: 'settled', status: 'skipped', completedCampaign: true });
    const [row] = await rowsOf('c2');
    expect(row).toMatchObject({ status: 'skipped', errorCode: 'ALREADY_SENT' });
    expect(row?.errorDetail).toMatch(/^campaign c1 row 1 sent the same message .* 0\.0 h ago, within DUPLICATE_WINDOW_HOURS/);
    expect((await ledger.status('c2'))?.state).toBe('completed');
  });

  it('the same row claimed again (a retry, a resume) is not its own duplicate', async () => {
    await campaign('c1', [queuedRow(1)]);
    await ledger.claim(job('c1', 1), NUMBER);
    await ledger.settle(job('c1', 1), { status: 'queued', errorCode: '131000', errorDetail: 'try again' }, NUMBER);
    expect(await ledger.claim(job('c1', 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 2 });
  });

  it('a send Meta refused (failed) or that halted the campaign leaves no trace in the guard; a sent or unknown one does', async () => {
    await campaign('c1', [queuedRow(1), queuedRow(2), queuedRow(3), queuedRow(4)]);
    for (const row of [1, 2, 3, 4]) await ledger.claim(job('c1', row), NUMBER);
    await ledger.settle(job('c1', 1), { status: 'failed', errorCode: '131026', errorDetail: 'undeliverable' }, NUMBER);
    await ledger.halt(job('c1', 2), '190', 'token expired', NUMBER);
    await ledger.settle(job('c1', 3), { status: 'sent', wamid: 'wamid.3' }, NUMBER);
    await ledger.settle(job('c1', 4), { status: 'unknown', errorCode: 'IN_DOUBT', errorDetail: 'x' }, NUMBER);
    const entries = Object.entries(await guardEntries(redis, sentGuardKeys(prefix, NUMBER).sent));
    const owners = entries.map(([, owner]) => owner.split('/').slice(0, 2).join('/'));
    expect(owners.sort()).toStrictEqual(['c1/3', 'c1/4']);
  });

  it(
    'at ingest: a row whose message was sent within the window is skipped ALREADY_SENT; outside the ' +
      'window, with --allow-repeat, or with other values it is queued',
    async () => {
      await campaign('c1', [queuedRow(1), queuedRow(2)]);
      await ledger.claim(job('c1', 1), NUMBER);
      await ledger.claim(job('c1', 2), NUMBER);
      const { sent } = sentGuardKeys(prefix, NUMBER);
      await putGuardEntry(redis, sent, testFingerprint(`fp-${phoneNumber(2)}`), `c1/2/${Date.now() - 25 * HOUR}`);

      const other: IngestedRow = {
        row: 3,
        phone: phoneNumber(1),
        status: 'queued',
        message: { values: [], headerLink: undefined, fingerprint: 'fp-other-values' },
      };
      const result = await campaign('c2', [queuedRow(1), queuedRow(2), other]);
      expect(result.alreadySent).toStrictEqual([
        { row: 1, detail: expect.stringMatching(/^campaign c1 row 1 sent the same message/) as unknown },
      ]);
      expect(result.queued).toStrictEqual([2, 3]);
      // Only the queued rows join the backlog (the feed above took them); the skipped one never does.
      expect((await rowsOf('c2')).map((r) => r.status)).toStrictEqual(['skipped', 'queued', 'queued']);
      expect(await backlog('c2')).toStrictEqual([]);
      expect((await feedAll(ledger, NUMBER)).jobs).toStrictEqual([]);

      await ledger.createCampaign(ledgerTestDefinition('c3'));
      await ledger.allowRepeat('c3');
      expect((await ledger.recordIngested('c3', NUMBER, [queuedRow(1)])).queued).toStrictEqual([1]);
      expect(await backlog('c3')).toStrictEqual(['1']);
    },
  );

  it(
    'a fixed file sent again: rejected and skipped rows take the new verdict, other rows keep ' +
      'theirs, counters follow, a finished campaign reopens',
    async () => {
      const rejected = (row: number): IngestedRow => ({
        row,
        phone: 'bad',
        status: 'rejected',
        errorCode: 'PHONE_INVALID',
        errorDetail: 'line 2: bad',
      });
      await campaign('c1', [queuedRow(1), rejected(2), rejected(3)]);
      await ledger.claim(job('c1', 1), NUMBER);
      await ledger.settle(job('c1', 1), { status: 'sent', wamid: 'wamid.1' }, NUMBER);
      expect((await ledger.status('c1'))?.state).toBe('completed');

      const again = await ledger.recordIngested('c1', NUMBER, [
        queuedRow(1, phoneNumber(5)),
        queuedRow(2),
        { row: 3, phone: 'still bad', status: 'rejected', errorCode: 'VALUE_CONTROL_CHAR', errorDetail: 'line 4: x' },
      ]);
      expect(again).toStrictEqual({ queued: [2], alreadySent: [], reopened: 1 });
      // Reopened under a job number no earlier job of the row had (k+1), at the end of the backlog.
      expect(await backlog('c1')).toStrictEqual(['2:1']);
      const status = await ledger.status('c1');
      expect(status?.counts).toMatchObject({ total: 3, sent: 1, queued: 1, rejected: 1 });
      expect(status?.state).toBe('running');
      const rows = await rowsOf('c1');
      expect(rows.map((r) => [r.row, r.status, r.phone, r.errorCode])).toStrictEqual([
        [1, 'sent', phoneNumber(1), undefined],
        [2, 'queued', phoneNumber(2), undefined],
        [3, 'rejected', 'still bad', 'VALUE_CONTROL_CHAR'],
      ]);
      // The finished campaign left its number's active set; the reopened row puts it back, and is fed.
      expect((await feedAll(ledger, NUMBER)).jobs).toStrictEqual([job('c1', 2, 1)]);
      expect(await ledger.claim(job('c1', 2), NUMBER)).toStrictEqual({ outcome: 'stale' });
      expect(await ledger.claim(job('c1', 2, 1), NUMBER)).toMatchObject({ outcome: 'claimed', attempt: 1 });
    },
  );

  it('an interrupted ingest pauses the campaign; continuing lifts only that pause; cancel ends it so it can complete', async () => {
    // Nothing fed yet: both rows wait in the backlog.
    await campaign('c1', [queuedRow(1), queuedRow(2)], false, false);
    expect(await ledger.markIngestInterrupted('c1', 'ingest interrupted at row 2')).toBe(true);
    expect(await ledger.status('c1')).toMatchObject({ state: 'paused', pausedReason: 'ingest interrupted at row 2' });
    expect(await ledger.liftIngestPause('c1')).toBe(true);
    expect((await ledger.status('c1'))?.state).toBe('ingesting');

    // Interrupted again, then the operator pauses for another reason: continuing must not lift that.
    await ledger.markIngestInterrupted('c1', 'ingest interrupted at row 2');
    await ledger.resume('c1');
    await ledger.pause('c1', 'checking the template');
    expect(await ledger.liftIngestPause('c1')).toBe(false);
    expect((await ledger.status('c1'))?.pausedReason).toBe('checking the template');

    // The backlog is cancelled as a block; the ingest will not be continued, so the campaign completes.
    expect(await ledger.cancel('c1')).toStrictEqual({ outcome: 'cancelled', cancelled: 2 });
    expect(await ledger.status('c1')).toMatchObject({
      state: 'cancelled',
      ingestInterrupted: false,
      counts: { total: 2, queued: 0, cancelled: 2 },
    });
    expect((await ledger.status('c1'))?.finishedAt).toBeDefined();
    // Rows read into a cancelled campaign afterwards are cancelled, never queued.
    expect((await ledger.recordIngested('c1', NUMBER, [queuedRow(3)])).queued).toStrictEqual([]);
    expect(await backlog('c1')).toStrictEqual([]);
    expect((await rowsOf('c1')).map((r) => r.status)).toStrictEqual(['cancelled', 'cancelled', 'cancelled']);
    expect((await ledger.status('c1'))?.counts).toMatchObject({ total: 3, queued: 0, cancelled: 3 });
  });

  async function rowsOf(id: string) {
    const rows = [];
    for await (const page of ledger.rows(id)) rows.push(...page);
    return rows;
  }
});
