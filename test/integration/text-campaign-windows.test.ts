import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition, RowRecord } from '../../src/campaigns/campaign.js';
import { produceCampaign, type RefusedRow } from '../../src/campaigns/ingest/producer.js';
import { planText, type TextPlan } from '../../src/campaigns/text-plan.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import type { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/**
 * A text campaign may only go to recipients whose 24-hour customer-service window is open:
 * the producer asks the ledger (a real Redis, its clock set by the test) per chunk of rows,
 * and skips the others WINDOW_CLOSED.
 */

const HEADER = ['phone', 'name', 'order_id', 'note'];

function textDefinition(id: string, text: TextPlan): CampaignDefinition {
  return { id, createdAt: 0, phoneNumberId: UNIT_NUMBER, text, source: { file: 'c.csv', phoneColumn: 'phone', fixWhitespace: false } };
}

describe('produceCampaign of a text (ledger on a real Redis): WINDOW_CLOSED', () => {
  const openLedger = ledgersPerTest('text-windows');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let clock: TestClock;
  let ledger: RedisLedger;
  const HOUR = 3_600_000;

  beforeEach(async () => {
    dir = await tempDir();
    ({ ledger, clock } = openLedger());
  });
  afterEach(async () => {
    await dir.cleanup();
  });

  async function csv(rows: number): Promise<string> {
    const path = join(dir.dir, 'c.csv');
    const lines = ['phone,name,order_id,note'];
    for (let i = 1; i <= rows; i++) lines.push(`${phoneNumber(i)},Name${i},A-${i},n`);
    await writeFile(path, lines.join('\n') + '\n');
    return path;
  }

  /** The user of row n wrote to the number `hoursAgo` hours ago. */
  async function wroteIn(n: number, hoursAgo = 1): Promise<void> {
    await ledger.applyInbound([
      { phoneNumberId: UNIT_NUMBER, waId: phoneNumber(n).slice(1), wamid: `in-${n}`, at: clock.now() - hoursAgo * HOUR, optOut: false },
    ]);
  }

  async function rowsOf(id: string): Promise<RowRecord[]> {
    const rows: RowRecord[] = [];
    for await (const page of ledger.rows(id)) rows.push(...page);
    return rows;
  }

  it('rows whose recipient wrote in the last 24 h are queued, others skipped WINDOW_CLOSED, counted, with line and reason', async () => {
    const file = await csv(6);
    await wroteIn(1);
    await wroteIn(3, 23);
    await wroteIn(4, 25); // too long ago: no window
    await wroteIn(6);
    const refused: RefusedRow[] = [];
    const text = planText('Hi {{name}}', false, HEADER, file, CLI_FIELD_NAMES['text.body']);
    const summary = await produceCampaign(
      { ledger },
      { names: CLI_FIELD_NAMES, file, define: () => textDefinition('t1', text), chunkSize: 4, onRefused: (r) => refused.push(r) },
    );

    expect(summary).toMatchObject({ rows: 6, valid: 3, queued: 3, skipped: 3, rejected: 0, byReason: { WINDOW_CLOSED: 3 } });
    expect(refused.map((r) => [r.row, r.line, r.reason])).toStrictEqual([
      [2, 3, 'WINDOW_CLOSED'],
      [4, 5, 'WINDOW_CLOSED'],
      [5, 6, 'WINDOW_CLOSED'],
    ]);
    expect(refused[0]?.detail).toMatch(/^line 3: the recipient has not written to this number in the last 24 hours.*131047/);
    const rows = await rowsOf('t1');
    expect(rows.map((r) => [r.row, r.status, r.errorCode])).toStrictEqual([
      [1, 'queued', undefined],
      [2, 'skipped', 'WINDOW_CLOSED'],
      [3, 'queued', undefined],
      [4, 'skipped', 'WINDOW_CLOSED'],
      [5, 'skipped', 'WINDOW_CLOSED'],
      [6, 'queued', undefined],
    ]);
    expect((await ledger.status('t1'))?.counts).toMatchObject({ queued: 3, skipped: 3 });
  });

  it('a dry run counts them the same and writes nothing', async () => {
    const file = await csv(4);
    await wroteIn(2);
    const summary = await produceCampaign(
      { ledger },
      {
        names: CLI_FIELD_NAMES,
        file,
        define: () => textDefinition('t2', planText('Hi {{name}}', false, HEADER, file, CLI_FIELD_NAMES['text.body'])),
        dryRun: true,
      },
    );
    expect(summary).toMatchObject({ rows: 4, valid: 1, queued: 1, skipped: 3, byReason: { WINDOW_CLOSED: 3 } });
    expect(await ledger.getCampaign('t2')).toBeUndefined();
  });

  it('looks windows up once per chunk of rows, never once per row', async () => {
    const file = await csv(1000);
    for (let n = 1; n <= 1000; n += 2) await wroteIn(n);
    const calls: number[] = [];
    const lookup = ledger.serviceWindowsOpen.bind(ledger);
    ledger.serviceWindowsOpen = (number, waIds) => {
      calls.push(waIds.length);
      return lookup(number, waIds);
    };
    const summary = await produceCampaign(
      { ledger },
      {
        names: CLI_FIELD_NAMES,
        file,
        define: () => textDefinition('t3', planText('Hi {{name}}', false, HEADER, file, CLI_FIELD_NAMES['text.body'])),
        chunkSize: 250,
      },
    );
    expect(summary).toMatchObject({ queued: 500, skipped: 500, byReason: { WINDOW_CLOSED: 500 } });
    expect(calls).toStrictEqual([250, 250, 250, 250]);
  });

  it('a template campaign never asks for windows', async () => {
    const file = join(dir.dir, 't.csv');
    await writeFile(file, `phone,first_name,order_id\n${phoneNumber(1)},Ana,A-1\n`);
    ledger.serviceWindowsOpen = () => Promise.reject(new Error('a template campaign asked for service windows'));
    expect(await produceCampaign({ ledger }, { names: CLI_FIELD_NAMES, file, define: () => orderUpdateDefinition('t4') })).toMatchObject({
      queued: 1,
      skipped: 0,
    });
  });

  it('recipients in the opt-outs are skipped OPTED_OUT, saying it is a text campaign', async () => {
    const file = await csv(2);
    await wroteIn(1);
    await wroteIn(2);
    await ledger.addOptOut(UNIT_NUMBER, phoneNumber(2));
    const refused: RefusedRow[] = [];
    const summary = await produceCampaign(
      { ledger },
      {
        names: CLI_FIELD_NAMES,
        file,
        define: () => textDefinition('t5', planText('Hi {{name}}', false, HEADER, file, CLI_FIELD_NAMES['text.body'])),
        optedOut: await ledger.optOuts(UNIT_NUMBER),
        onRefused: (r) => refused.push(r),
      },
    );
    expect(summary).toMatchObject({ queued: 1, skipped: 1, byReason: { OPTED_OUT: 1 } });
    expect(refused[0]?.detail).toMatch(/this is a text campaign/);
  });

  it('sending the file again into the campaign queues a row whose recipient has written in since', async () => {
    const file = await csv(2);
    await wroteIn(1);
    const define = () => textDefinition('t6', planText('Hi {{name}}', false, HEADER, file, CLI_FIELD_NAMES['text.body']));
    expect(await produceCampaign({ ledger }, { names: CLI_FIELD_NAMES, file, define })).toMatchObject({ queued: 1, skipped: 1 });
    await wroteIn(2);
    expect(await produceCampaign({ ledger }, { names: CLI_FIELD_NAMES, file, define })).toMatchObject({
      queued: 1,
      skipped: 0,
      reopened: 1,
    });
    expect((await rowsOf('t6')).map((r) => r.status)).toStrictEqual(['queued', 'queued']);
  });
});
