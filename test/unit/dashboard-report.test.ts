import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/campaigns/memory-ledger.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { reportDisposition, reportStream } from '../../src/dashboard/report-download.js';
import { orderUpdateDefinition, UNIT_NUMBER } from '../support/unit-campaigns.js';

describe('the report download', () => {
  it('is, byte for byte, the file `campaign report` writes (spreadsheet-safe cells, quoting, every page of rows)', async () => {
    const ledger = new MemoryLedger();
    await ledger.createCampaign(orderUpdateDefinition('c1'));
    const rows = Array.from({ length: 2500 }, (_, i) =>
      i % 500 === 7
        ? { row: i + 1, phone: '=HYPERLINK("http://evil")', status: 'rejected' as const, errorCode: 'PHONE_INVALID', errorDetail: '+cmd|" /C calc"!A0, "quoted"\nnext line' }
        : { row: i + 1, phone: `+49151${String(i).padStart(7, '0')}`, status: 'queued' as const, message: { values: ['Ann', String(i)], headerLink: undefined, fingerprint: `f${i}` } },
    );
    await ledger.recordIngested('c1', UNIT_NUMBER, rows);
    await ledger.finishIngest('c1');
    const dir = await mkdtemp(join(tmpdir(), 'dashboard-report-'));
    try {
      const path = join(dir, 'c1.csv');
      expect(await writeReport(ledger, 'c1', path)).toBe(2500);
      const errors: Error[] = [];
      const downloaded = await text(reportStream(ledger, 'c1', (e) => errors.push(e)));
      expect(downloaded).toBe(await readFile(path, 'utf8'));
      expect(downloaded).toContain(`"'=HYPERLINK(""http://evil"")"`);
      expect(errors).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a failed read of the rows instead of ending quietly', async () => {
    const broken = {
      // eslint-disable-next-line require-yield
      async *rows(): AsyncIterable<never[]> {
        await Promise.resolve();
        throw new Error('Redis away');
      },
    };
    const errors: Error[] = [];
    await expect(text(reportStream(broken, 'c1', (e) => errors.push(e)))).rejects.toThrow('Redis away');
    expect(errors.map((e) => e.message)).toEqual(['Redis away']);
  });

  it('names the file after the campaign, with nothing a header could misread', () => {
    expect(reportDisposition('c20260101-0900-abc123')).toBe('attachment; filename="c20260101-0900-abc123.csv"');
    expect(reportDisposition('a"b\r\nc')).toBe('attachment; filename="a_b__c.csv"');
  });
});
