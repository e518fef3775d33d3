import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { isAppError } from '../../src/errors/app-error.js';

/**
 * `campaign report` writing a file (src/campaigns/report/report.ts): the whole report or
 * nothing, with flat memory and no listener piling up on the file stream, whatever its size.
 * The ledger is a stub that makes rows up page by page, as RedisLedger.rows reads them.
 */

const PAGE = 1000;
const DETAIL = 'x'.repeat(200);

/** `total` made-up rows in pages; `failAfterPages` pages in, the read fails as a lost Redis would; `onPage` sees each page's number. */
function generatedRows(total: number, options: { failAfterPages?: number; onPage?: (page: number) => void } = {}) {
  return {
    async *rows(): AsyncIterable<RowRecord[]> {
      for (let from = 1, page = 0; from <= total; from += PAGE, page++) {
        if (page === options.failAfterPages) throw new Error('Redis away');
        options.onPage?.(page);
        await Promise.resolve();
        yield Array.from({ length: Math.min(PAGE, total - from + 1) }, (_, i) => ({
          row: from + i,
          phone: `+49151${String(from + i).padStart(8, '0')}`,
          status: 'failed' as const,
          errorCode: '131026',
          errorDetail: DETAIL,
          attempts: 1,
        }));
      }
    },
  };
}

describe('writeReport', () => {
  let dir = '';
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'report-file-'));
    warnings.length = 0;
    process.on('warning', onWarning);
  });

  afterEach(async () => {
    process.off('warning', onWarning);
    await rm(dir, { recursive: true, force: true });
  });

  it('writes 50,000 rows with no MaxListenersExceededWarning (one listener set for the whole file, not one per drain)', async () => {
    const path = join(dir, 'big.csv');
    expect(await writeReport(generatedRows(50_000), 'c1', path)).toBe(50_000);
    // Warnings are emitted on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n')).toHaveLength(50_002);
    expect(text.slice(0, text.indexOf('\n'))).toBe(
      'row,phone,user_id,status,message_id,error_code,error_detail,attempts,delivered_at,read_at,' +
        'reply_payload,flow_response,pricing_category,clicked_at,clicks',
    );
    expect(text).toContain(`\n50000,+4915100050000,,failed,,131026,${DETAIL},1,,,,,,,\n`);
  });

  it("fills user_id from the portfolio's links, one lookup per page of rows, empty where none is known", async () => {
    const path = join(dir, 'users.csv');
    const asked: number[] = [];
    const userIds = (phones: readonly string[]) => {
      asked.push(phones.length);
      return Promise.resolve(phones.map((p) => (p.endsWith('2') ? `DE.${p.slice(1)}` : undefined)));
    };
    expect(await writeReport(generatedRows(1500), 'c1', path, { userIds })).toBe(1500);
    expect(asked).toEqual([1000, 500]);
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines[1]).toBe(`1,+4915100000001,,failed,,131026,${DETAIL},1,,,,,,,`);
    expect(lines[2]).toBe(`2,+4915100000002,DE.4915100000002,failed,,131026,${DETAIL},1,,,,,,,`);
  });

  it('streams 200,000 rows (48 MB of CSV) with the heap flat: what is kept after GC does not grow with the rows written', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap: number[] = [];
    const path = join(dir, 'huge.csv');
    const rows = generatedRows(200_000, {
      onPage: (page) => {
        if (page % 20 !== 19) return;
        gc();
        heap.push(process.memoryUsage().heapUsed);
      },
    });
    expect(await writeReport(rows, 'c1', path)).toBe(200_000);
    const bytes = (await readFile(path)).length;
    expect(bytes).toBeGreaterThan(40_000_000);
    expect(heap).toHaveLength(10);
    // Kept whole, the report would add its 48 MB (more as JS strings); streamed, what is
    // alive between pages is a page or two and the stream buffers.
    const growth = Math.max(...heap) - (heap[0] ?? 0);
    expect(growth, `heap after GC per 20 pages (MB): ${heap.map((h) => (h / 1e6).toFixed(1)).join(' ')}`).toBeLessThan(8_000_000);
  });

  it('a read that fails half-way leaves the report there before untouched and no temporary file', async () => {
    const path = join(dir, 'c1.csv');
    await writeFile(path, 'the report saved before\n');
    await expect(writeReport(generatedRows(10_000, { failAfterPages: 3 }), 'c1', path)).rejects.toThrow('Redis away');
    expect((await readFile(path, 'utf8')) === 'the report saved before\n', 'the report saved before is kept').toBe(true);
    expect(await readdir(dir)).toEqual(['c1.csv']);
  });

  it('a stop (Ctrl-C) half-way leaves the report there before untouched and no temporary file', async () => {
    const path = join(dir, 'c1.csv');
    await writeFile(path, 'the report saved before\n');
    const stop = new AbortController();
    const rows = generatedRows(10_000, { onPage: (page) => page === 4 && stop.abort() });
    await expect(writeReport(rows, 'c1', path, { signal: stop.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect((await readFile(path, 'utf8')) === 'the report saved before\n', 'the report saved before is kept').toBe(true);
    expect(await readdir(dir)).toEqual(['c1.csv']);
  });

  it('replaces the report there before only once the new one is complete', async () => {
    const path = join(dir, 'c1.csv');
    await writeFile(path, 'the report saved before\n');
    const seen: string[] = [];
    const rows = generatedRows(3_000, { onPage: () => seen.push(readFileSync(path, 'utf8')) });
    expect(await writeReport(rows, 'c1', path)).toBe(3_000);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((text) => text !== 'the report saved before\n').length, 'reads that saw a half-written report').toBe(0);
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(3_002);
    expect(await readdir(dir)).toEqual(['c1.csv']);
  });

  it('a path under a file is OUTPUT_UNWRITABLE, and nothing is left behind', async () => {
    await writeFile(join(dir, 'a-file'), 'x');
    const error: unknown = await writeReport(generatedRows(10), 'c1', join(dir, 'a-file', 'c1.csv')).catch((e: unknown) => e);
    expect(isAppError(error, 'OUTPUT_UNWRITABLE')).toBe(true);
    expect(await readdir(dir)).toEqual(['a-file']);
  });
});
