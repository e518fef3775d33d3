import { readdirSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openCsv, type CsvRecord } from '../../src/csv/csv-records.js';
import { csvFiles, readAll } from '../support/csv-reading.js';
import { AppError } from '../../src/errors/app-error.js';
import { pattern } from '../support/long-pattern.js';

const files = csvFiles('csv-records-test');
const { dir } = files;
const csvFile = files.write;
const all = readAll;

afterAll(files.cleanup);

async function read(content: string, options: { delimiter?: string } = {}): Promise<CsvRecord[]> {
  return all(await openCsv(csvFile(content), options));
}

const row = (line: number, ...fields: string[]): CsvRecord => ({ kind: 'row', fields, line });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected openCsv to reject, it resolved');
}

describe('openCsv: header and rows', () => {
  it('gives the header, then the rows with the line each starts on', async () => {
    const source = await openCsv(csvFile('phone,name,code\n+14155550123,Ana,A1\n+5511987654321,João,B2\n'));

    expect(source.header).toStrictEqual(['phone', 'name', 'code']);
    expect(source.delimiter).toBe(',');
    expect(await all(source)).toStrictEqual([row(2, '+14155550123', 'Ana', 'A1'), row(3, '+5511987654321', 'João', 'B2')]);
  });

  it('trims header names; unquoted values are kept as written (the row check trims them)', async () => {
    const source = await openCsv(csvFile(' phone , name \n +14155550123 , Ana \n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([row(2, ' +14155550123 ', ' Ana ')]);
  });

  it('reads a quoted field after a space ("a, \\"b, c\\"") and keeps the spaces inside quotes', async () => {
    expect(await read('phone,note\n+14155550123, "Lima, Ana"\n+14155550123," spaced "\n')).toStrictEqual([
      row(2, '+14155550123', 'Lima, Ana'),
      row(3, '+14155550123', ' spaced '),
    ]);
  });

  it('reads CRLF line endings without leaving \\r in the last field', async () => {
    expect(await read('phone,name\r\n+14155550123,Ana\r\n+4915112345678,Jonas\r\n')).toStrictEqual([
      row(2, '+14155550123', 'Ana'),
      row(3, '+4915112345678', 'Jonas'),
    ]);
  });

  it('reads a last line without a trailing newline', async () => {
    expect(await read('phone,name\n+14155550123,Ana')).toStrictEqual([row(2, '+14155550123', 'Ana')]);
  });

  it('keeps delimiters, doubled quotes and line breaks inside quoted fields', async () => {
    expect(
      await read('phone,note\n+14155550123,"Lima, Ana"\n+14155550123,"she said ""hi"""\n+14155550123,"line one\nline two"\n'),
    ).toStrictEqual([
      row(2, '+14155550123', 'Lima, Ana'),
      row(3, '+14155550123', 'she said "hi"'),
      row(4, '+14155550123', 'line one\nline two'),
    ]);
  });

  it('numbers physical lines: a record after a multi-line quoted field gets its own line', async () => {
    const records = await read('phone,note\n+1,"one\ntwo\nthree"\n+2,after\n+3,"a\r\nb"\n+4,end\n');

    expect(records.map((r) => r.line)).toStrictEqual([2, 5, 6, 8]);
    // csv-parse alone would count the CRLF inside the quotes as two lines; it reaches us as \n.
    expect(records[2]).toStrictEqual(row(6, '+3', 'a\nb'));
  });

  it('skips blank lines (also before the header and of only spaces) but counts them', async () => {
    const source = await openCsv(csvFile('\n  \nphone,name\n\n+14155550123,Ana\n\n \t \n+4915112345678,Jonas\n\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([row(5, '+14155550123', 'Ana'), row(8, '+4915112345678', 'Jonas')]);
  });

  it('skips rows of only delimiters, as Excel writes empty rows, but not a row with any value', async () => {
    expect(await read('phone,name,code\n,,\n , ,\n,Ana,\n')).toStrictEqual([row(4, '', 'Ana', '')]);
  });

  it('returns records with the wrong number of fields as they are, with their line (the row check reports them)', async () => {
    expect(await read('phone,name,code\n+14155550123,Ana\n\n+14155550123,Ana,A1,extra\n')).toStrictEqual([
      row(2, '+14155550123', 'Ana'),
      row(4, '+14155550123', 'Ana', 'A1', 'extra'),
    ]);
  });

  it('a header-only file has no records and no error', async () => {
    const source = await openCsv(csvFile('phone,name\r\n\r\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([]);
  });
});

describe('openCsv: malformed records', () => {
  it('an unclosed quote in the middle: only its line is malformed, the lines it would swallow are read on their own', async () => {
    const records = await read('phone,name\n+1,Ana\n+2,"Bob\n+3,Carl\n+4,"Dan"\n\n+5,Eve\n');

    expect(records).toStrictEqual([
      row(2, '+1', 'Ana'),
      {
        kind: 'malformed',
        line: 3,
        reason: 'MALFORMED_RECORD',
        problem: expect.stringMatching(
          pattern(
            /^unclosed quote in field 2: the quote opened on line 3 closes on line 5, .*line 3 is/,
            / rejected and lines 4–5 are read again as records of their own; check the quoting on line 3/,
          ),
        ) as string,
      },
      row(4, '+3', 'Carl'),
      row(5, '+4', 'Dan'),
      row(7, '+5', 'Eve'),
    ]);
  });

  it('an unclosed quote that would swallow the rest of the file → the file is refused whole: CSV_UNCLOSED_QUOTE', async () => {
    const path = csvFile('phone,name\n+1,Ana\n+2,Ben\n+3,"Carl\n+4,Dan\n+5,Eve\n');
    const error = await rejection(openCsv(path));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_UNCLOSED_QUOTE' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('a quote opens in field 2 on line 4 and is never closed: lines 4–6 (the rest of the file)');
  });

  it('a stray quote inside an unquoted field rejects that record only, once, with its line', async () => {
    const records = await read('phone,name\n+1,12" pizza "large"\n+2,Ana\n+3,5" screen\n\n+4,7" tablet\n+5,Eve');

    expect(records.map((r) => [r.kind, r.line])).toStrictEqual([
      ['malformed', 2],
      ['row', 3],
      ['malformed', 4],
      ['malformed', 6],
      ['row', 7],
    ]);
    expect(records[0]).toHaveProperty('problem', expect.stringContaining('stray quote in field 2'));
    expect(records[0]).toHaveProperty('problem', expect.stringContaining('check the quoting on line 2'));
  });

  it('text after a closing quote makes that record malformed, and only that one', async () => {
    const records = await read('phone,name\n+1,"Ana" Lima\n+2,Ben\n+3,"Carl"\n+4,Dan\n');

    expect(records[0]).toMatchObject({ kind: 'malformed', line: 2, reason: 'MALFORMED_RECORD' });
    expect(records[0]).toHaveProperty(
      'problem',
      expect.stringMatching(/^text after a closing quote in field 2: .*check the quoting on line 2$/),
    );
    expect(records.slice(1)).toStrictEqual([row(3, '+2', 'Ben'), row(4, '+3', 'Carl'), row(5, '+4', 'Dan')]);
  });

  it('a malformed record after multi-line records and blank lines still gets its own start line', async () => {
    const records = await read('phone,note\r\n+1,"a\r\nb"\r\n\r\n\r\n+2,x "y" z\r\n+3,ok\r\n');

    expect(records.map((r) => [r.kind, r.line])).toStrictEqual([
      ['row', 2],
      ['malformed', 6],
      ['row', 7],
    ]);
  });
});

describe('openCsv: the file and its header', () => {
  it.each([
    ['an empty file', ''],
    ['only blank lines', '\n\n\n'],
    ['only blank CRLF lines and spaces', '\r\n  \r\n\t\r\n'],
    ['only a BOM', '\ufeff'],
    ['only empty rows', ';;;\r\n;;;\r\n'],
  ])('%s → CSV_HEADER_INVALID', async (_label, content) => {
    const path = csvFile(content);
    const error = await rejection(openCsv(path));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('no header');
  });

  it('duplicate and unnamed header columns → CSV_HEADER_INVALID naming them, the file and the fix', async () => {
    const path = csvFile('phone,name, phone ,,city,name\n+1,Ana,+2,x,Lima,Ana\n');
    const error = await rejection(openCsv(path));

    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    const message = (error as Error).message;
    expect(message).toContain(path);
    expect(message).toContain('"phone" names columns 1 and 3');
    expect(message).toContain('"name" names columns 2 and 6');
    expect(message).toContain('column 4 has no name');
    expect(message).toContain('Name or remove those columns');
  });

  it('an unterminated quote in the header → CSV_HEADER_INVALID with the line and the problem', async () => {
    const error = await rejection(openCsv(csvFile('\nphone,"name\n+14155550123,Ana\n')));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    expect((error as Error).message).toMatch(/the header on line 2 cannot be read: unclosed quote/);
  });

  it('a missing file → CSV_UNREADABLE naming the path, with the ENOENT cause', async () => {
    const path = join(dir, 'no-such-file.csv');
    const error = await rejection(openCsv(path));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('no such file or directory');
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a directory instead of a file → CSV_UNREADABLE, refused before it is opened', async () => {
    const error = await rejection(openCsv(dir));

    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect((error as Error).message).toBe(
      `${dir} is a directory, not a regular file; give the path of the .csv file itself. Nothing was created.`,
    );
  });

  it('an invalid --delimiter → OPTION_INVALID before the file is opened', async () => {
    const error = await rejection(openCsv(join(dir, 'not-opened.csv'), { delimiter: ':' }));

    expect(error).toMatchObject({ code: 'OPTION_INVALID' });
  });
});

describe('openCsv: streaming', () => {
  // Other test files share this process (isolate: false), so the count of open descriptors moves
  // under us: look for descriptors that point at this test's own file instead.
  const handlesOn = (path: string): number =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path;
      } catch {
        return false;
      }
    }).length;

  it('reads records one at a time; close() stops early and releases the file', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `+14155550123,name${i}`);
    const path = csvFile(`phone,name\n${lines.join('\n')}\n`);
    const source = await openCsv(path);

    const first = await source.records.next();
    const second = await source.records.next();
    expect(handlesOn(path)).toBe(1);
    source.close();
    source.close();

    expect(first.value).toStrictEqual(row(2, '+14155550123', 'name0'));
    expect(second.value).toStrictEqual(row(3, '+14155550123', 'name1'));
    await expect.poll(() => handlesOn(path), { timeout: 10_000, interval: 10 }).toBe(0);
  });

  it('a read error part-way → the records so far, then AppError CSV_UNREADABLE with the path, line and OS reason', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `+14155550123,name${i}`); // several 64 KiB reads
    const path = csvFile(`phone,name\n${lines.join('\n')}\n`);
    const probe = await open(path);
    const fileHandle = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const realRead = fileHandle.read;
    let reads = 0;
    let failAt = Infinity;
    const spy = vi.spyOn(fileHandle, 'read').mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (++reads === failAt) return Promise.reject(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      return realRead.apply(this, args);
    });
    const records: CsvRecord[] = [];
    let caught: unknown;
    try {
      // openCsv reads the head, pre-scans the whole file, then reads the first chunk for the
      // header; the chunk after the next one fails.
      const source = await openCsv(path);
      failAt = reads + 2;
      try {
        for await (const record of source.records) records.push(record);
      } finally {
        source.close();
      }
    } catch (error) {
      caught = error;
    } finally {
      spy.mockRestore();
    }

    expect(reads).toBeGreaterThanOrEqual(3);
    expect(records.length).toBeGreaterThan(1_000);
    expect(records.length).toBeLessThan(20_000);
    expect(records.at(-1)).toMatchObject({ kind: 'row', line: records.length + 1 });
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect((caught as Error).message).toContain(path);
    expect((caught as Error).message).toMatch(/\(reading stopped after line \d+\): EIO: i\/o error/);
  });

  it('refusing the header releases the file too', async () => {
    const path = csvFile('phone,phone\n+1,+2\n');
    await rejection(openCsv(path));

    await expect.poll(() => handlesOn(path), { timeout: 10_000, interval: 10 }).toBe(0);
  });
});
