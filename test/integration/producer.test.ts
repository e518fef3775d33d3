import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import { produceCampaign, type ProduceInput, type RefusedRow } from '../../src/campaigns/ingest/producer.js';
import type { IngestedRow, IngestResult } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber, tempDir, writeCampaignCsv } from '../support/csv-files.js';
import type { LedgerPeek } from '../support/ledger-peek.js';
import type { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/**
 * The producer (src/campaigns/ingest/producer.ts) on the ledger (a real Redis, its clock set
 * by the test): CSV rows in, ledger rows, rejects and duplicates out.
 */

const SAMPLE_CSV = fileURLToPath(new URL('../../samples/recipients.csv', import.meta.url));
const HOUR = 3_600_000;
const good = (n: number): string => `${phoneNumber(n)},Name${n},A-${n}`;

describe('produceCampaign (ledger on a real Redis)', () => {
  const openLedger = ledgersPerTest('producer');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let clock: TestClock;
  let ledger: RedisLedger;
  let peek: LedgerPeek;

  beforeEach(async () => {
    dir = await tempDir();
    ({ ledger, clock, peek } = openLedger());
  });

  afterEach(async () => {
    await dir.cleanup();
  });

  async function csv(lines: string[], name = 'campaign.csv'): Promise<string> {
    const path = join(dir.dir, name);
    await writeFile(path, ['phone,first_name,order_id', ...lines].join('\n') + '\n');
    return path;
  }

  function produce(file: string, definition: CampaignDefinition, more: Partial<ProduceInput> = {}, on: RedisLedger = ledger) {
    return produceCampaign({ ledger: on }, { names: CLI_FIELD_NAMES, file, define: () => definition, ...more });
  }

  async function rowsOf(id: string, on: RedisLedger = ledger): Promise<RowRecord[]> {
    const rows: RowRecord[] = [];
    for await (const page of on.rows(id)) rows.push(...page);
    return rows;
  }

  /** Feeds every waiting row and answers each claim `sent`, as a worker would. */
  async function sendAll(on: RedisLedger = ledger): Promise<SendJob[]> {
    const { jobs } = await on.feed(UNIT_NUMBER, { windowSize: 100_000, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0 });
    for (const job of jobs) {
      const claim = await on.claim(job, UNIT_NUMBER);
      if (claim.outcome === 'claimed') await on.settle(job, { status: 'sent', wamid: `wamid.${job.campaignId}.${job.row}` }, UNIT_NUMBER);
    }
    return jobs;
  }

  it('every row of the file is in the campaign: queued with its recipient and values, in row order; the ingest is finished', async () => {
    const file = join(dir.dir, 'three.csv');
    await writeCampaignCsv(file, 3);
    const progress: number[] = [];
    const summary = await produce(file, orderUpdateDefinition('c1'), { chunkSize: 2, onProgress: (n) => progress.push(n) });
    expect(summary).toMatchObject({
      id: 'c1',
      rows: 3,
      valid: 3,
      queued: 3,
      rejected: 0,
      skipped: 0,
      reopened: 0,
      interruptedAtRow: undefined,
      delimiter: ',',
    });
    expect(progress.at(-1)).toBe(3);
    expect(await ledger.getCampaign('c1')).toEqual(orderUpdateDefinition('c1'));
    expect(await ledger.status('c1')).toMatchObject({ state: 'running', counts: { total: 3, queued: 3 } });
    expect(await peek.backlog('c1')).toEqual(['1', '2', '3']);
    const { jobs } = await ledger.feed(UNIT_NUMBER, { windowSize: 10, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0 });
    expect(await ledger.claim(jobs[1] ?? { campaignId: 'c1', row: 2 }, UNIT_NUMBER)).toEqual({
      outcome: 'claimed',
      attempt: 1,
      row: { to: phoneNumber(2), values: ['Name2', 'A-2'], headerLink: undefined },
    });
  });

  it('refused rows are in the ledger with their reason and line, and in the summary and the rejects callback; none is queued', async () => {
    const refused: RefusedRow[] = [];
    const summary = await produce(SAMPLE_CSV, orderUpdateDefinition('c-rejects'), { onRefused: (r) => refused.push(r) });
    expect(summary).toMatchObject({ rows: 197, valid: 190, queued: 190, rejected: 6, skipped: 1 });
    expect(summary.byReason).toEqual({
      PHONE_MISSING: 1,
      PHONE_INVALID: 1,
      VALUE_LINE_BREAK: 1,
      VALUE_TAB: 1,
      VALUE_EMPTY: 1,
      FIELD_COUNT: 1,
      DUPLICATE_PHONE: 1,
    });
    const rows = await rowsOf('c-rejects');
    expect(rows).toHaveLength(197);
    const notQueued = rows.filter((r) => r.status !== 'queued');
    expect(notQueued.map((r) => [r.row, r.status, r.errorCode])).toEqual([
      [20, 'rejected', 'PHONE_MISSING'],
      [45, 'rejected', 'PHONE_INVALID'],
      [70, 'rejected', 'VALUE_LINE_BREAK'],
      [95, 'rejected', 'VALUE_TAB'],
      [120, 'rejected', 'VALUE_EMPTY'],
      [140, 'skipped', 'DUPLICATE_PHONE'],
      [160, 'rejected', 'FIELD_COUNT'],
    ]);
    expect(rows.find((r) => r.row === 70)?.errorDetail).toMatch(/^line \d+: .*column "first_name"/);
    expect(rows.find((r) => r.row === 140)?.errorDetail).toMatch(/same number as row \d+, which is the one sent/);
    expect(refused.map((r) => [r.row, r.reason])).toEqual(notQueued.map((r) => [r.row, r.errorCode]));
    expect(refused.every((r) => r.detail.startsWith(`line ${r.line}: `))).toBe(true);
    expect(await peek.backlog('c-rejects')).toHaveLength(190);
    expect(await peek.backlog('c-rejects')).not.toContain('20');
  });

  it('a later row with the same number is skipped DUPLICATE_PHONE, naming the row that is sent', async () => {
    const file = await csv([good(1), good(2), `${phoneNumber(1)},Other,A-9`]);
    const summary = await produce(file, orderUpdateDefinition('dup'));
    expect(summary).toMatchObject({ rows: 3, valid: 2, queued: 2, skipped: 1, byReason: { DUPLICATE_PHONE: 1 } });
    expect((await rowsOf('dup'))[2]).toMatchObject({
      row: 3,
      status: 'skipped',
      errorCode: 'DUPLICATE_PHONE',
      errorDetail: 'line 4: same number as row 1, which is the one sent',
    });
  });

  it('recipients who opted out of marketing are skipped OPTED_OUT, saying where that was learnt', async () => {
    const file = await csv([good(1), good(2)]);
    const optedOut = new Map([[phoneNumber(2), { campaignId: 'older', row: 7, at: Date.parse('2026-03-04T10:00:00Z') }]]);
    const summary = await produce(file, orderUpdateDefinition('opt'), { optedOut });
    expect(summary).toMatchObject({ queued: 1, skipped: 1, byReason: { OPTED_OUT: 1 } });
    expect((await rowsOf('opt'))[1]).toMatchObject({ status: 'skipped', errorCode: 'OPTED_OUT' });
    expect((await rowsOf('opt'))[1]?.errorDetail).toContain('Meta answered 131050 to campaign older row 7 on 2026-03-04');
  });

  it(
    'the same file as a new campaign: rows whose message was sent within the window are ' +
      'skipped ALREADY_SENT, counted as such, and reported',
    async () => {
      const { ledger: guarded } = openLedger({ duplicateWindowMs: 24 * HOUR }, clock);
      const file = await csv([good(1), good(2), good(3)]);
      await produce(file, orderUpdateDefinition('first'), {}, guarded);
      await sendAll(guarded);
      clock.advance(HOUR);
      // Row 2 gets another order: another message.
      const again = await csv([good(1), `${phoneNumber(2)},Name2,B-2`, good(3)], 'again.csv');
      const refused: RefusedRow[] = [];
      const summary = await produce(again, orderUpdateDefinition('second'), { onRefused: (r) => refused.push(r) }, guarded);
      expect(summary).toMatchObject({ rows: 3, valid: 1, queued: 1, skipped: 2, byReason: { ALREADY_SENT: 2 } });
      expect(refused.map((r) => [r.row, r.line, r.phone, r.reason])).toEqual([
        [1, 2, phoneNumber(1), 'ALREADY_SENT'],
        [3, 4, phoneNumber(3), 'ALREADY_SENT'],
      ]);
      expect(refused[0]?.detail).toMatch(/^line 2: campaign first row 1 sent the same message .* 1\.0 h ago/);
      expect((await rowsOf('second', guarded)).map((r) => r.status)).toEqual(['skipped', 'queued', 'skipped']);

      // --allow-repeat: nothing is checked against earlier sends.
      const repeat = await produce(file, orderUpdateDefinition('third'), { allowRepeat: true }, guarded);
      expect(repeat).toMatchObject({ queued: 3, skipped: 0 });
      expect(await sendAll(guarded)).toHaveLength(4);
      expect((await guarded.status('third'))?.counts).toMatchObject({ sent: 3, skipped: 0 });
    },
  );

  it('a fixed file sent into the same campaign: rows rejected before are queued again, rows sent are never queued again', async () => {
    const first = await csv([good(1), `${phoneNumber(2)},"Bruno" Costa,A-2`, good(3)]);
    expect(await produce(first, orderUpdateDefinition('fix'))).toMatchObject({ rows: 3, queued: 2, rejected: 1 });
    await sendAll();
    expect((await ledger.status('fix'))?.state).toBe('completed');

    const fixed = await csv([good(1), `${phoneNumber(2)},Bruno Costa,A-2`, good(3)], 'fixed.csv');
    expect(await produce(fixed, orderUpdateDefinition('fix'))).toMatchObject({
      rows: 3,
      valid: 1,
      queued: 1,
      rejected: 0,
      reopened: 1,
      kept: 2,
      keptByStatus: { sent: 2 },
    });
    expect(await sendAll()).toEqual([{ campaignId: 'fix', row: 2, requeue: 1 }]);
    expect((await ledger.status('fix'))?.counts).toMatchObject({ total: 3, sent: 3, rejected: 0 });
  });

  it(
    'stopped by a signal: what was read is kept and queued, the campaign pauses; the same ' +
      'file sent into it continues and lifts that pause',
    async () => {
      const file = join(dir.dir, 'big.csv');
      await writeCampaignCsv(file, 600);
      const stop = new AbortController();
      const first = await produce(file, orderUpdateDefinition('big'), {
        chunkSize: 50,
        signal: stop.signal,
        onProgress: (read) => read >= 100 && stop.abort(),
      });
      expect(first.interruptedAtRow).toBeGreaterThanOrEqual(100);
      expect(first.interruptedAtRow).toBeLessThan(600);
      expect(first.rows).toBe(first.interruptedAtRow);
      expect(first.queued).toBe(first.rows);
      expect(await ledger.status('big')).toMatchObject({
        state: 'paused',
        pausedReason: `ingest interrupted at row ${first.interruptedAtRow}`,
        ingestInterrupted: true,
        counts: { total: first.rows, queued: first.rows },
      });

      const second = await produce(file, orderUpdateDefinition('big'));
      expect(second).toMatchObject({ rows: 600, queued: 600 - first.rows, interruptedAtRow: undefined });
      expect(await ledger.status('big')).toMatchObject({ state: 'running', ingestInterrupted: false, counts: { total: 600, queued: 600 } });
    },
  );

  it('a ledger write that fails part-way pauses the campaign as an interruption and rethrows', async () => {
    const file = join(dir.dir, 'ten.csv');
    await writeCampaignCsv(file, 10);
    const { ledger: failing } = openLedger();
    const record = failing.recordIngested.bind(failing);
    let calls = 0;
    failing.recordIngested = (campaignId: string, number: string, rows: readonly IngestedRow[]): Promise<IngestResult> =>
      ++calls === 3 ? Promise.reject(new Error('connection lost')) : record(campaignId, number, rows);
    await expect(produce(file, orderUpdateDefinition('half'), { chunkSize: 2 }, failing)).rejects.toThrow('connection lost');
    const status = await failing.status('half');
    expect(status).toMatchObject({ state: 'paused', ingestInterrupted: true });
    expect(status?.pausedReason).toMatch(/^ingest stopped at row \d+ \(INTERNAL_ERROR\)$/);
  });

  it('refuses a cancelled or a different campaign under the same ID, and a file without rows, before writing anything', async () => {
    const file = await csv([good(1)]);
    await produce(file, orderUpdateDefinition('gone'));
    await ledger.cancel('gone');
    await expect(produce(file, orderUpdateDefinition('gone'))).rejects.toMatchObject({ code: 'CAMPAIGN_STATE_CONFLICT' });
    expect((await ledger.status('gone'))?.counts.total).toBe(1);

    await expect(produce(file, orderUpdateDefinition('gone', { phoneNumberId: '999' }))).rejects.toMatchObject({
      code: 'CAMPAIGN_MISMATCH',
    });

    const empty = await csv([], 'empty.csv');
    await expect(produce(empty, orderUpdateDefinition('nothing'))).rejects.toMatchObject({ code: 'CSV_NO_ROWS' });
    expect(await ledger.listCampaigns()).toEqual(['gone']);
  });

  it('a dry run checks every row and writes nothing', async () => {
    const file = await csv([good(1), 'not-a-phone,X,Y', good(1)]);
    const summary = await produce(file, orderUpdateDefinition('dry'), { dryRun: true });
    expect(summary).toMatchObject({ rows: 3, valid: 1, queued: 1, rejected: 1, skipped: 1 });
    expect(await ledger.listCampaigns()).toEqual([]);
    expect(await ledger.getCampaign('dry')).toBeUndefined();
  });
});
