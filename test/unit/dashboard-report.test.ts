import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { ReportLedger } from '../../src/campaigns/ledger.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { reportDisposition, reportStream } from '../../src/http/report-download.js';

/** The ledger's rows() over a list of rows, in pages as it gives them. */
function rowsOf(rows: readonly RowRecord[]): Pick<ReportLedger, 'rows'> {
  return {
    async *rows(_campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
      for (let start = 0; start < rows.length; start += pageSize) yield await Promise.resolve(rows.slice(start, start + pageSize));
    },
  };
}

describe('the report download', () => {
  it('is, byte for byte, the file `campaign report` writes (spreadsheet-safe cells, quoting, every page of rows)', async () => {
    const ledger = rowsOf(
      Array.from({ length: 2500 }, (_, i): RowRecord =>
        i % 500 === 7
          ? {
              row: i + 1,
              phone: '=HYPERLINK("http://evil")',
              status: 'rejected',
              attempts: 0,
              errorCode: 'PHONE_INVALID',
              errorDetail: '+cmd|" /C calc"!A0, "quoted"\nnext line',
            }
          : { row: i + 1, phone: `+49151${String(i).padStart(7, '0')}`, status: 'queued', attempts: 0 },
      ),
    );
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
