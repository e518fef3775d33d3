import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCsv, type CsvSource } from '../../src/csv/csv-records.js';
import { AppError } from '../../src/errors/app-error.js';

const dir = mkdtempSync(join(tmpdir(), 'csv-records-test-'));
let files = 0;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function csvFile(content: string | Buffer): string {
  const path = join(dir, `file-${++files}.csv`);
  writeFileSync(path, content);
  return path;
}

async function all(source: CsvSource): Promise<string[][]> {
  const records: string[][] = [];
  try {
    for await (const record of source.records) records.push(record);
  } finally {
    source.close();
  }
  return records;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected openCsv to reject, it resolved');
}

describe('openCsv', () => {
  it('gives the header, then the records as arrays (header excluded)', async () => {
    const source = await openCsv(csvFile('phone,name,code\n+14155550123,Ana,A1\n+5511987654321,João,B2\n'));

    expect(source.header).toStrictEqual(['phone', 'name', 'code']);
    expect(await all(source)).toStrictEqual([
      ['+14155550123', 'Ana', 'A1'],
      ['+5511987654321', 'João', 'B2'],
    ]);
  });

  it('trims header names but not record values', async () => {
    const source = await openCsv(csvFile(' phone , name \n +14155550123 , Ana \n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([[' +14155550123 ', ' Ana ']]);
  });

  it('strips a UTF-8 BOM from the first header name', async () => {
    const path = csvFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('phone,name\n+14155550123,Ana\n')]));
    const source = await openCsv(path);

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(source.header[0]?.charCodeAt(0)).toBe('p'.charCodeAt(0));
    expect(await all(source)).toStrictEqual([['+14155550123', 'Ana']]);
  });

  it('reads CRLF line endings without leaving \\r in the last field', async () => {
    const source = await openCsv(csvFile('phone,name\r\n+14155550123,Ana\r\n+4915112345678,Jonas\r\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([
      ['+14155550123', 'Ana'],
      ['+4915112345678', 'Jonas'],
    ]);
  });

  it('reads a last line without a trailing newline', async () => {
    const source = await openCsv(csvFile('phone,name\n+14155550123,Ana'));

    expect(await all(source)).toStrictEqual([['+14155550123', 'Ana']]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields', async () => {
    const source = await openCsv(
      csvFile('phone,note\n+14155550123,"Lima, Ana"\n+14155550123,"she said ""hi"""\n+14155550123,"line one\nline two"\n'),
    );

    expect(await all(source)).toStrictEqual([
      ['+14155550123', 'Lima, Ana'],
      ['+14155550123', 'she said "hi"'],
      ['+14155550123', 'line one\nline two'],
    ]);
  });

  it('skips blank lines, including before the header', async () => {
    const source = await openCsv(csvFile('\n\nphone,name\n\n+14155550123,Ana\n\n\n+4915112345678,Jonas\n\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([
      ['+14155550123', 'Ana'],
      ['+4915112345678', 'Jonas'],
    ]);
  });

  it('returns records with the wrong number of fields as they are (row-check reports them)', async () => {
    const source = await openCsv(csvFile('phone,name,code\n+14155550123,Ana\n+14155550123,Ana,A1,extra\n'));

    expect(await all(source)).toStrictEqual([
      ['+14155550123', 'Ana'],
      ['+14155550123', 'Ana', 'A1', 'extra'],
    ]);
  });

  it('honours another delimiter', async () => {
    const source = await openCsv(csvFile('phone;name\n+14155550123;Lima, Ana\n'), { delimiter: ';' });

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([['+14155550123', 'Lima, Ana']]);
  });

  it('a header-only file has no records', async () => {
    const source = await openCsv(csvFile('phone,name\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(await all(source)).toStrictEqual([]);
  });

  it.each([
    ['an empty file', ''],
    ['only blank lines', '\n\n\n'],
    ['only blank CRLF lines', '\r\n\r\n'],
    ['only a BOM', '\ufeff'],
  ])('%s → CSV_HEADER_INVALID', async (_label, content) => {
    const path = csvFile(content);
    const error = await rejection(openCsv(path));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    expect((error as Error).message).toContain(path);
  });

  it('a missing file → AppError CSV_UNREADABLE with the ENOENT cause', async () => {
    const path = join(dir, 'no-such-file.csv');
    const error = await rejection(openCsv(path));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect((error as Error).message).toContain(path);
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a directory instead of a file → CSV_UNREADABLE', async () => {
    const error = await rejection(openCsv(dir));

    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
  });

  it('an unterminated quote in the header → CSV_UNREADABLE', async () => {
    const error = await rejection(openCsv(csvFile('phone,"name\n+14155550123,Ana\n')));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
  });

  it('streams: records can be read one at a time and close() stops early', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `+14155550123,name${i}`);
    const source = await openCsv(csvFile(`phone,name\n${lines.join('\n')}\n`));

    const first = await source.records.next();
    const second = await source.records.next();
    source.close();

    expect(first.value).toStrictEqual(['+14155550123', 'name0']);
    expect(second.value).toStrictEqual(['+14155550123', 'name1']);
  });
});
