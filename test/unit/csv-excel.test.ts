import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCsv, type CsvRecord } from '../../src/csv/csv-records.js';
import { csvFiles, readAll } from '../support/csv-reading.js';
import { HEAD_BYTES } from '../../src/csv/file-head.js';

/** What users upload: Excel (many locales write `;`, CRLF and a BOM), CRM exports, hand edits. */
const FIXTURE = join(import.meta.dirname, '../fixtures/csv/excel-semicolon-bom-crlf.csv');
const files = csvFiles('csv-excel-test');
const csvFile = files.write;
const all = readAll;

afterAll(files.cleanup);

const row = (line: number, ...fields: string[]): CsvRecord => ({ kind: 'row', fields, line });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected openCsv to reject, it resolved');
}

describe('an Excel export: BOM, CRLF, ";", quoted line breaks, non-Latin names', () => {
  it('the fixture is what Excel writes (so the test below cannot pass on a cleaned-up file)', () => {
    const bytes = readFileSync(FIXTURE);
    expect([...bytes.subarray(0, 3)]).toStrictEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toContain('city\r\n');
    expect(bytes.toString('utf8')).toContain('"line one\nline two"\r\n');
  });

  it('detects ";" and reads every value, name and line exactly', async () => {
    const source = await openCsv(FIXTURE);

    expect(source.delimiter).toBe(';');
    expect(source.header).toStrictEqual(['phone', 'first_name', 'order_id', 'city']);
    expect(source.header[0]?.charCodeAt(0)).toBe('p'.charCodeAt(0));
    expect(await all(source)).toStrictEqual([
      row(2, '+4915112345678', 'Zoë 😀', 'A-1', 'Köln; Altstadt'),
      row(4, '+48501234567', 'Łukasz', 'A-2', 'Kraków'),
      row(5, '+81312345678', '東京', 'A-3', 'line one\nline two'),
      row(7, '+5511987654321', 'João "Jo" Silva', 'A-4', 'São Paulo'),
      // line 8 is ";;;", an empty row
      row(9, '+4915112345679', 'Ana', 'A-5', 'Berlin'),
    ]);
  });

  it('an explicit delimiter overrides detection', async () => {
    const source = await openCsv(FIXTURE, { delimiter: ',' });

    expect(source.delimiter).toBe(',');
    expect(source.header).toStrictEqual(['phone;first_name;order_id;city']);
    source.close();
  });

  it('an explicit "tab" is parsed as a tab', async () => {
    const source = await openCsv(csvFile('phone,name\t;x\n+1,Ana\tb;c\n'), { delimiter: 'tab' });

    expect(source.delimiter).toBe('\t');
    expect(source.header).toStrictEqual(['phone,name', ';x']);
    expect(await all(source)).toStrictEqual([row(2, '+1,Ana', 'b;c')]);
  });

  it('a CRM export with CRLF inside a quoted field keeps the line numbers after it right', async () => {
    const records = await all(await openCsv(csvFile('phone;note\r\n+1;"a\r\nb\r\nc"\r\n+2;x\r\n')));

    expect(records).toStrictEqual([row(2, '+1', 'a\nb\nc'), row(5, '+2', 'x')]);
  });

  it('an unclosed quote in a CRLF file: its line is malformed, the lines after it are rows with the right numbers', async () => {
    const records = await all(await openCsv(csvFile('\ufeffphone;name\r\n+1;"Ana\r\n+2;Bob\r\n+3;"Carl"\r\n+4;Dan\r\n')));

    expect(records.map((r) => [r.kind, r.line])).toStrictEqual([
      ['malformed', 2],
      ['row', 3],
      ['row', 4],
      ['row', 5],
    ]);
    expect(records[0]).toHaveProperty(
      'problem',
      expect.stringContaining('line 2 is rejected and lines 3–4 are read again as records of their own'),
    );
    expect(records.slice(1)).toStrictEqual([row(3, '+2', 'Bob'), row(4, '+3', 'Carl'), row(5, '+4', 'Dan')]);
  });
});

describe('other delimiters, detected from the header line', () => {
  it.each([
    ['tab', '\t', 'phone\tname\tnote\n+1\tAna\t"Lima, a; b|c"\n'],
    ['|', '|', 'phone|name|note\n+1|Ana|"Lima, a; b"\n'],
    [',', ',', 'phone,name,note\n+1,Ana,"x; y; z | w"\n'],
    [';', ';', 'phone;name;note\n+1;Ana;"Lima, a, b"\n'],
  ])('%s', async (_label, delimiter, content) => {
    const source = await openCsv(csvFile(content));

    expect(source.delimiter).toBe(delimiter);
    expect(source.header).toStrictEqual(['phone', 'name', 'note']);
    const records = await all(source);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'row', line: 2, fields: ['+1', 'Ana', expect.any(String)] });
  });

  it('a tab-delimited file keeps empty fields, and a row of only tabs is an empty row', async () => {
    const source = await openCsv(csvFile('phone\tname\tnote\r\n\t\t\r\n+1\t\tx\r\n\tAna\t\r\n'));

    expect(source.delimiter).toBe('\t');
    expect(await all(source)).toStrictEqual([row(3, '+1', '', 'x'), row(4, '', 'Ana', '')]);
  });

  it('counts only outside quotes, on the first line with text', async () => {
    const source = await openCsv(csvFile('\r\n;;\r\n"a,b,c,d";e;f\r\n1;2;3\r\n'));

    expect(source.delimiter).toBe(';');
    expect(source.header).toStrictEqual(['a,b,c,d', 'e', 'f']);
    expect(await all(source)).toStrictEqual([row(4, '1', '2', '3')]);
  });

  it('a one-column file falls back to ","', async () => {
    const source = await openCsv(csvFile('phone\n+1;x\n'));

    expect(source.delimiter).toBe(',');
    expect(await all(source)).toStrictEqual([row(2, '+1;x')]);
  });
});

describe('encodings', () => {
  it('a UTF-8 file without a BOM reads the same names', async () => {
    const records = await all(await openCsv(csvFile('phone,name\n+1,Zoë 😀\n+2,Łukasz\n+3,東京\n')));

    expect(records.map((r) => (r.kind === 'row' ? r.fields[1] : r.problem))).toStrictEqual(['Zoë 😀', 'Łukasz', '東京']);
  });

  it('a UTF-16 file (Excel "Unicode Text") → CSV_UNREADABLE saying to save as UTF-8', async () => {
    const path = csvFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('phone\tname\r\n+1\tAna\r\n', 'utf16le')]));
    const error = await rejection(openCsv(path));

    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect(error.message).toContain(path);
    expect(error.message).toContain('UTF-16');
    expect(error.message).toContain('CSV UTF-8');
  });

  it('a Windows-1252 file (Excel "CSV" on Windows) → CSV_UNREADABLE, not garbled names', async () => {
    const path = csvFile(Buffer.from('phone;name\r\n+1;Zo\xeb\r\n', 'latin1'));
    const error = await rejection(openCsv(path));

    expect(error).toMatchObject({ code: 'CSV_UNREADABLE' });
    expect(error.message).toContain('not UTF-8');
  });

  it('bytes that are not UTF-8 further into the file make that record malformed, not a garbled row', async () => {
    const filler = Array.from({ length: 8_000 }, (_, i) => `+1,name${i}`).join('\n'); // past the first 64 KiB
    expect(filler.length).toBeGreaterThan(HEAD_BYTES);
    const path = csvFile(Buffer.concat([Buffer.from(`phone,name\n${filler}\n`), Buffer.from('+2,Zo\xeb\n+3,Ana\n', 'latin1')]));
    const records = await all(await openCsv(path));

    expect(records).toHaveLength(8_002);
    expect(records[8_000]).toMatchObject({ kind: 'malformed', line: 8_002 });
    expect(records[8_000]).toHaveProperty('problem', expect.stringContaining('not UTF-8'));
    expect(records[8_001]).toStrictEqual(row(8_003, '+3', 'Ana'));
  });

  it('a multi-byte character cut by the end of the first 64 KiB is not mistaken for a bad encoding', async () => {
    // Rows of 1,000 emoji (4 bytes, 2 UTF-16 units each: under the 4,096 field limit).
    const header = 'phone,name\n';
    const name = '😀'.repeat(1_000);
    const line = `+1,${name}\n`;
    const rowBytes = Buffer.byteLength(line);
    const offsetInRow = (HEAD_BYTES - header.length) % rowBytes;
    expect(offsetInRow).toBeGreaterThan(3); // the head ends inside the name…
    expect((offsetInRow - 3) % 4).not.toBe(0); // …and inside an emoji
    const rows = Math.ceil(HEAD_BYTES / rowBytes) + 2;
    const records = await all(await openCsv(csvFile(header + line.repeat(rows))));

    expect(records).toHaveLength(rows);
    expect(records.every((record, i) => record.kind === 'row' && record.line === i + 2 && record.fields[1] === name)).toBe(true);
  });
});
