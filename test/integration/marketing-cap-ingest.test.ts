import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { summaryJson } from '../../src/app/views/send-summary-view.js';
import { summaryText } from '../../src/cli/format.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { testContext } from '../support/app-context.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import { feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const [A, B] = ['106540352242922', '106540352242923'];
const ANA = phoneNumber(1);
const BRUNO = phoneNumber(2);
const CARLA = phoneNumber(3);

/**
 * `campaign send` (and its dry run) skips the recipients whose marketing cap (Meta's 131049) holds
 * on the number's portfolio, as MARKETING_CAP_WAIT, and says how many and until when; a UTILITY
 * template still reaches them, and once the wait is over they are sent again. The ledger's clock
 * is stopped and moved by the test.
 */
describe('MARKETING_CAP_WAIT at ingest: the plan, the dry run and the send', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let context: AppContext;
  let clock: TestClock;

  beforeEach(async () => {
    dir = await tempDir();
    const prefix = freshPrefix('marketing-cap-ingest');
    const base = testContext(prefix, {
      REPORTS_DIR: join(dir.dir, 'reports'),
      WHATSAPP_PHONE_NUMBER_ID: B,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      SEND_RATE: '0',
      PORTFOLIOS: `${A}:shop,${B}:shop`,
    });
    clock = TestClock.stopped(Math.floor(Date.now() / 1000) * 1000);
    context = { ...base, ledger: new RedisLedger(base.redis, prefix, { clock, portfolios: base.config.portfolios }) };
  });

  afterEach(async () => {
    await context.close();
    await dir.cleanup();
  });

  /** Meta failed a MARKETING template from number A to each of `phones` with 131049, at `at`. */
  async function cappedOnA(id: string, phones: readonly string[], at: number): Promise<void> {
    const { ledger } = context;
    await ledger.createCampaign({ ...ledgerTestDefinition(id), phoneNumberId: A, category: 'MARKETING' });
    await ledger.recordIngested(
      id,
      A,
      phones.map((phone, i) => queuedRow(i + 1, phone)),
    );
    await ledger.finishIngest(id);
    await feedAll(ledger, A);
    for (const [i] of phones.entries()) {
      await ledger.claim({ campaignId: id, row: i + 1 }, A);
      await ledger.settle({ campaignId: id, row: i + 1 }, { status: 'sent', wamid: `wamid.${id}.${i + 1}` }, A);
    }
    await ledger.applyStatuses(
      phones.map((_, i) => ({ phoneNumberId: A, wamid: `wamid.${id}.${i + 1}`, kind: 'failed', at, code: '131049', detail: 'x' }) as const),
    );
  }

  async function promoFile(name: string, phones: readonly string[]): Promise<string> {
    const file = join(dir.dir, `${name}.csv`);
    await writeFile(file, ['phone,name,discount,banner', ...phones.map((p) => `${p},Ana,25%,https://example.com/a.jpg`)].join('\n') + '\n');
    return file;
  }

  const promo = (file: string, options: Partial<SendOptions> & { campaign: string }) =>
    runSend(context, {
      file,
      phoneNumberId: B,
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['name', 'discount'],
      headerImageColumn: 'banner',
      // The banner's link is an example one: sent as the link, as Meta would fetch it.
      mediaBy: 'link',
      ...options,
    });

  async function rowsOf(id: string): Promise<RowRecord[]> {
    const rows: RowRecord[] = [];
    for await (const page of context.ledger.rows(id)) rows.push(...page);
    return rows;
  }

  it('a dry run on another number of the portfolio counts the capped rows and says until when; the send skips them', async () => {
    const t = clock.now();
    await cappedOnA('first', [ANA], t - 3 * HOUR);
    await cappedOnA('second', [BRUNO], t - HOUR);
    const file = await promoFile('promo', [ANA, BRUNO, CARLA]);

    const plan = await promo(file, { campaign: 'dry', dryRun: true });
    expect(plan).toMatchObject({ rows: 3, valid: 1, skipped: 2, byReason: { MARKETING_CAP_WAIT: 2 }, marketingCapUntil: t - HOUR + DAY });
    expect(summaryJson(plan, 0)).toMatchObject({ marketingCapUntil: new Date(t - HOUR + DAY).toISOString() });
    const line = summaryText(plan, 0, { zone: { kind: 'offset', minutes: 0 }, startsNow: true })
      .split('\n')
      .find((l) => l.includes('MARKETING_CAP_WAIT'));
    expect(line).toMatch(
      /^ {8}2 {2}MARKETING_CAP_WAIT: a MARKETING template to a recipient whose marketing template Meta failed with 131049/,
    );
    const last = new Date(t - HOUR + DAY).toISOString();
    expect(line).toContain(`; the last of them may be sent a MARKETING template from ${last.slice(0, 10)} ${last.slice(11, 19)} UTC`);
    const rejects = parse<{ row: string; reason: string }>(await readFile(plan.rejectsFile ?? '', 'utf8'), { columns: true });
    expect(rejects.map((r) => [r.row, r.reason.split(':')[0]])).toEqual([
      ['1', 'MARKETING_CAP_WAIT'],
      ['2', 'MARKETING_CAP_WAIT'],
    ]);
    expect(rejects[0]?.reason).toContain(
      `no MARKETING template goes to them before ${new Date(t - 3 * HOUR + DAY).toISOString().slice(0, 19)}Z`,
    );

    const sent = await promo(file, { campaign: 'real' });
    expect(sent).toMatchObject({ queued: 1, skipped: 2, byReason: { MARKETING_CAP_WAIT: 2 } });
    expect((await rowsOf('real')).map((r) => [r.phone, r.status, r.errorCode])).toEqual([
      [ANA, 'skipped', 'MARKETING_CAP_WAIT'],
      [BRUNO, 'skipped', 'MARKETING_CAP_WAIT'],
      [CARLA, 'queued', undefined],
    ]);
  });

  it('a UTILITY template still reaches a capped recipient', async () => {
    await cappedOnA('first', [ANA], clock.now());
    const file = join(dir.dir, 'utility.csv');
    await writeFile(file, `phone,first_name,order_id\n${ANA},Ana,A-1\n`);
    const plan = await runSend(context, {
      file,
      campaign: 'utility',
      phoneNumberId: B,
      template: 'order_update',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['first_name', 'order_id'],
      dryRun: true,
    });
    expect(plan).toMatchObject({ valid: 1, skipped: 0, byReason: {}, marketingCapUntil: undefined });
    expect(summaryJson(plan, 0)).toMatchObject({ marketingCapUntil: null });
  });

  it('once the wait is over, the recipient is sent again: the same file into the same campaign queues the skipped rows', async () => {
    const failedAt = clock.now();
    await cappedOnA('first', [ANA], failedAt);
    const file = await promoFile('later', [ANA, CARLA]);
    expect(await promo(file, { campaign: 'later' })).toMatchObject({ queued: 1, byReason: { MARKETING_CAP_WAIT: 1 } });
    clock.set(failedAt + DAY);
    expect(await promo(file, { campaign: 'later' })).toMatchObject({ reopened: 1, skipped: 0, marketingCapUntil: undefined });
    expect((await rowsOf('later')).map((r) => r.status)).toEqual(['queued', 'queued']);
  });
});
