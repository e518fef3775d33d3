import { afterAll, describe, expect, it } from 'vitest';
import { openCsv, type CsvRecord } from '../../src/csv/csv-records.js';
import { AppError } from '../../src/errors/app-error.js';
import { csvFiles, readAll } from '../support/csv-reading.js';

/** The cases of the bug report "rows lost silently", each in a file of its own. */
const files = csvFiles('csv-bug-report-test');
const csvFile = files.write;

afterAll(files.cleanup);

const row = (line: number, ...fields: string[]): CsvRecord => ({ kind: 'row', fields, line });

async function read(content: string | Buffer): Promise<CsvRecord[]> {
  return readAll(await openCsv(csvFile(content)));
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected openCsv to reject, it resolved');
}

describe('every data line is answered', () => {
  it('"Bruno" Costa then a valid row: 4 data lines, 4 answers (2 malformed, 2 rows)', async () => {
    const records = await read(
      'phone,name,order\n+4915112345678,"Bruno" Costa,A-1\n+4915112345679,Ana,A-2\n+4915112345670,Bruno ' +
        '"B" Costa,A-3\n+4915112345671,Eve,A-4\n',
    );

    expect(records.map((r) => [r.kind, r.line, r.kind === 'malformed' ? r.reason : ''])).toStrictEqual([
      ['malformed', 2, 'MALFORMED_RECORD'],
      ['row', 3, ''],
      ['malformed', 4, 'MALFORMED_RECORD'],
      ['row', 5, ''],
    ]);
    expect(records[1]).toStrictEqual(row(3, '+4915112345679', 'Ana', 'A-2'));
    expect(records[3]).toStrictEqual(row(5, '+4915112345671', 'Eve', 'A-4'));
  });

  it('an unclosed quote on line 3 no longer swallows the next lines: the three recipients after it are rows', async () => {
    const records = await read('phone,name\n+1,Ana\n+2,"Bob\n+3,Carl\n+4,Dan\n+5,Eve\n+6,"Fay"\n');

    expect(records).toStrictEqual([
      row(2, '+1', 'Ana'),
      {
        kind: 'malformed',
        line: 3,
        reason: 'MALFORMED_RECORD',
        problem:
          'unclosed quote in field 2: the quote opened on line 3 closes on line 7, followed by more ' +
          'text, so it is taken as a quote that was never closed: ' +
          'line 3 is rejected and lines 4–7 are read again as records of their own; check the quoting on line 3 ' +
          '(close the quote, or write a quote that belongs to a value twice, as in "12"" pizza")',
      },
      row(4, '+3', 'Carl'),
      row(5, '+4', 'Dan'),
      row(6, '+5', 'Eve'),
      row(7, '+6', 'Fay'),
    ]);
  });

  it('a quote that never closes before the end of the file → CSV_UNCLOSED_QUOTE naming its line and the last; no record read', async () => {
    const path = csvFile('phone,name\r\n+1,Ana\r\n+2,Ben\r\n+3,"Carl\r\n+4,Dan\r\n+5,Eve\r\n+6,Fay');
    const error = await rejection(openCsv(path));

    expect(error.code).toBe('CSV_UNCLOSED_QUOTE');
    expect(error.message).toBe(
      `${path}: a quote opens in field 2 on line 4 and is never closed: lines 4–7 (the rest of the file) would be read as one value, ` +
        'so the file is refused whole. Fix line 4: close the quote on that line, remove it, or, for a ' +
        'quote inside a value, write it twice ("12"" pizza"). Nothing was created.',
    );
  });

  it('an unclosed quote on the last line is refused too (it has no line after it to swallow, but its record cannot be read)', async () => {
    const error = await rejection(openCsv(csvFile('phone,name\n+1,Ana\n+2,"Bob\n')));

    expect(error.code).toBe('CSV_UNCLOSED_QUOTE');
    expect(error.message).toContain('a quote opens in field 2 on line 3 and is never closed: it is on the last line of the file');
  });

  it('quotes that only look unbalanced (stray quotes, "" escapes) do not refuse the file', async () => {
    const records = await read('phone,name\n+1,12" pizza\n+2,"say ""hi"""\n+3,"a"" b"\n+4,ok\n');

    expect(records.map((r) => [r.kind, r.line])).toStrictEqual([
      ['malformed', 2],
      ['row', 3],
      ['row', 4],
      ['row', 5],
    ]);
  });
});

describe('encoding: spaces, BOMs, line breaks', () => {
  it.each([
    ['U+00A0', '\u00a0'],
    ['U+2003', '\u2003'],
    ['U+3000', '\u3000'],
  ])('fields starting and ending with %s are rows, not "bytes that are not UTF-8"', async (_label, space) => {
    const records = await read(`phone,name,city\n${space}+4915112345678${space},${space}Ana${space}, "${space}Lima"\n+2,${space},x\n`);

    expect(records).toStrictEqual([
      row(2, `${space}+4915112345678${space}`, `${space}Ana${space}`, `${space}Lima`),
      row(3, '+2', space, 'x'),
    ]);
  });

  it('a doubled BOM reads fine, and header names lose BOMs and Unicode spaces', async () => {
    const source = await openCsv(
      csvFile(
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]),
          Buffer.from('phone;\u00a0first name\u3000;\ufeffcity\r\n+1;Ana;Lima\r\n'),
        ]),
      ),
    );

    expect(source.header).toStrictEqual(['phone', 'first name', 'city']);
    expect(source.delimiter).toBe(';');
    expect(await readAll(source)).toStrictEqual([row(2, '+1', 'Ana', 'Lima')]);
  });

  it('CRLF, LF and lone CR line ends, mixed in one file, each end one line', async () => {
    expect(await read('phone,name\r\n+1,Ana\r+2,Ben\n+3,"Carl\r\nCosta"\r\r\n+4,Dan\r')).toStrictEqual([
      row(2, '+1', 'Ana'),
      row(3, '+2', 'Ben'),
      row(4, '+3', 'Carl\nCosta'),
      row(7, '+4', 'Dan'),
    ]);
  });
});

describe('size and counts', () => {
  it('a 5 MB phone cell → FIELD_TOO_LONG with a short problem and no value; the rows around it read', async () => {
    const source = await openCsv(csvFile(`phone,name\n+1,Ana\n${'4'.repeat(5_000_000)},Ben\n+3,Carl\n`));
    const records = await readAll(source);

    expect(records.map((r) => [r.kind, r.line])).toStrictEqual([
      ['row', 2],
      ['malformed', 3],
      ['row', 4],
    ]);
    const bad = records[1];
    expect(bad).toMatchObject({ kind: 'malformed', reason: 'FIELD_TOO_LONG' });
    expect(bad).not.toHaveProperty('fields');
    expect(bad?.kind === 'malformed' && bad.problem).toMatch(
      /^field 1 is 65,536\+ characters long \(line 3 is 5,000,004 characters long\); no template value can be longer than 4,096/,
    );
    expect(JSON.stringify(records).length).toBeLessThan(1_000);
  });

  it('estimatedRows counts the data records the pre-scan saw (blank lines and empty rows not counted)', async () => {
    const source = await openCsv(csvFile('phone,note\n+1,"a\nb"\n\n , \n+2,x\n+3,5" y\n'));

    expect(source.estimatedRows).toBe(3);
    expect(await readAll(source)).toHaveLength(3);
  });

  it('a header-only file: zero records, estimatedRows 0', async () => {
    const source = await openCsv(csvFile('\ufeffphone,name\r\n'));

    expect(source.header).toStrictEqual(['phone', 'name']);
    expect(source.estimatedRows).toBe(0);
    expect(await readAll(source)).toStrictEqual([]);
  });
});
