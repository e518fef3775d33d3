import { describe, expect, it } from 'vitest';
import type { CsvRecord } from '../../src/csv/csv-records.js';
import { FIELD_LIMIT, RECORD_LIMIT } from '../../src/csv/limits.js';
import { RecordParser } from '../../src/csv/record-parser.js';

/** Feeds the parser the given chunks, as the file reader does, and collects what it yields. */
function parseChunks(chunks: readonly Uint8Array[], delimiter = ','): CsvRecord[] {
  const parser = new RecordParser(delimiter);
  const out: CsvRecord[] = [];
  for (const chunk of chunks) out.push(...parser.write(chunk));
  out.push(...parser.end());
  return out;
}

const parse = (text: string, delimiter = ','): CsvRecord[] => parseChunks([Buffer.from(text)], delimiter);
const row = (line: number, ...fields: string[]): CsvRecord => ({ kind: 'row', fields, line });
const malformed = (
  line: number,
  problem: RegExp | string,
  reason: 'MALFORMED_RECORD' | 'FIELD_TOO_LONG' = 'MALFORMED_RECORD',
): CsvRecord => ({
  kind: 'malformed',
  line,
  reason,
  problem: (typeof problem === 'string' ? expect.stringContaining(problem) : expect.stringMatching(problem)) as string,
});

/** Every kind of line the reader meets: CRLF, blank lines, multi-line fields, both kinds of bad quote. */
const MIXED =
  '\ufeffphone;note\r\n' +
  '+1;"a\r\nb"\r\n' +
  '\r\n' +
  '+2;"x; ""y"""\r\n' +
  '+3;5" screen\r\n' +
  '  \r\n' +
  '+4;Zoë 😀 東京\r\n' +
  '+5;"open\r\n' +
  '+6;swallowed\r\n' +
  '+7;"closes"\r\n' +
  ';;\r\n' +
  '+8;last';

const MIXED_EXPECTED: CsvRecord[] = [
  row(1, 'phone', 'note'),
  row(2, '+1', 'a\nb'),
  row(5, '+2', 'x; "y"'),
  malformed(6, 'stray quote in field 2'),
  row(8, '+4', 'Zoë 😀 東京'),
  // The quote opened on line 9 closes on line 11 with text after it: only line 9 is rejected.
  malformed(9, 'unclosed quote in field 2: the quote opened on line 9 closes on line 11'),
  row(10, '+6', 'swallowed'),
  row(11, '+7', 'closes'),
  row(13, '+8', 'last'),
];

describe('RecordParser: chunks', () => {
  it('yields rows and malformed records in file order, with the line each starts on', () => {
    expect(parse(MIXED, ';')).toStrictEqual(MIXED_EXPECTED);
  });

  it('gives the same records wherever the file is cut into chunks (CRLF, quotes, UTF-8 split across them)', () => {
    const bytes = Buffer.from(MIXED);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)], ';'), `cut at byte ${cut}`).toStrictEqual(MIXED_EXPECTED);
    }
  });

  it('gives the same records when fed one byte at a time', () => {
    const bytes = Buffer.from(MIXED);
    expect(
      parseChunks(
        Array.from(bytes, (byte) => Buffer.from([byte])),
        ';',
      ),
    ).toStrictEqual(MIXED_EXPECTED);
  });

  it('a chunk boundary inside a 2-, 3- and 4-byte character decodes it whole', () => {
    const text = 'h,v\n+1,é東😀\n';
    const bytes = Buffer.from(text);
    const start = bytes.indexOf(Buffer.from('é'));
    for (let cut = start + 1; cut < start + 9; cut++) {
      expect(parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at byte ${cut}`).toStrictEqual([
        row(1, 'h', 'v'),
        row(2, '+1', 'é東😀'),
      ]);
    }
  });

  it('a chunk boundary between the CR and the LF of a CRLF is one line break, inside quotes too', () => {
    const bytes = Buffer.from('h,v\r\n+1,"a\r\nb"\r\n+2,c\r\n');
    for (const cr of [3, 10, 14]) {
      expect(bytes[cr]).toBe(0x0d);
      expect(parseChunks([bytes.subarray(0, cr + 1), bytes.subarray(cr + 1)]), `cut after byte ${cr}`).toStrictEqual([
        row(1, 'h', 'v'),
        row(2, '+1', 'a\nb'),
        row(4, '+2', 'c'),
      ]);
    }
  });

  it('a lone CR is a line break; inside quotes it stays a CR, and a CR that ends a chunk waits for the next one', () => {
    expect(parse('h,v\r+1,a\r\r+2,b\r')).toStrictEqual([row(1, 'h', 'v'), row(2, '+1', 'a'), row(4, '+2', 'b')]);
    expect(parseChunks([Buffer.from('a,"x\r'), Buffer.from('y"\n')])).toStrictEqual([row(1, 'a', 'x\ry')]);
  });

  it('bytes that are not UTF-8 make their record malformed, saying which field, and the next record reads', () => {
    const records = parseChunks([Buffer.from('h,v\n+1,Zo'), Buffer.from([0xeb]), Buffer.from('\n+2,ok\n')]);

    expect(records).toStrictEqual([
      row(1, 'h', 'v'),
      malformed(2, /^field 2 contains bytes that are not UTF-8 .*"CSV UTF-8"/),
      row(3, '+2', 'ok'),
    ]);
  });

  it('a character cut by the end of the file is bad bytes, not a crash', () => {
    expect(parseChunks([Buffer.from('h,v\n+1,'), Buffer.from([0xf0, 0x9f])])).toStrictEqual([row(1, 'h', 'v'), malformed(2, 'not UTF-8')]);
  });
});

describe('RecordParser: spaces and BOMs', () => {
  const SPACES = [
    ['U+00A0 (no-break space)', '\u00a0'],
    ['U+2003 (em space)', '\u2003'],
    ['U+3000 (ideographic space)', '\u3000'],
  ];

  it.each(SPACES)('%s at the start and end of unquoted fields is kept as written, never "bad bytes"', (_label, space) => {
    expect(parse(`h,v,w\n${space}+1${space},${space}Ana,Lima${space}\n`)).toStrictEqual([
      row(1, 'h', 'v', 'w'),
      row(2, `${space}+1${space}`, `${space}Ana`, `Lima${space}`),
    ]);
  });

  it.each(SPACES)('%s around a quoted field is allowed and dropped; inside the quotes it is kept', (_label, space) => {
    expect(parse(`h,v\n+1,${space}"${space}Ana, Lima${space}"${space}\n`)).toStrictEqual([
      row(1, 'h', 'v'),
      row(2, '+1', `${space}Ana, Lima${space}`),
    ]);
  });

  it.each(SPACES)('a line of only %s is blank', (_label, space) => {
    expect(parse(`h,v\n${space}${space}\n${space},${space}\n+1,a\n`)).toStrictEqual([row(1, 'h', 'v'), row(4, '+1', 'a')]);
  });

  it('every BOM at the start of the file is dropped (a doubled BOM reads fine), also fed byte by byte', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]), Buffer.from('phone,name\n+1,Ana\n')]);
    const expected = [row(1, 'phone', 'name'), row(2, '+1', 'Ana')];

    expect(parseChunks([bytes])).toStrictEqual(expected);
    expect(parseChunks(Array.from(bytes, (byte) => Buffer.from([byte])))).toStrictEqual(expected);
  });

  it('a tab delimiter is not a space: empty tab-separated fields stay fields', () => {
    expect(parse('a\tb\tc\n\t"x"\t\n', '\t')).toStrictEqual([row(1, 'a', 'b', 'c'), row(2, '', 'x', '')]);
  });
});

describe('RecordParser: malformed records and recovery', () => {
  it('a stray quote rejects its own line only; every later line is answered', () => {
    expect(
      parse(
        'phone,name,code\n+4915112345678,"Bruno" Costa,A-1\n+4915112345679,Ana,A-2\n+4915112345670,Bruno ' +
          '"B" Costa,A-3\n+4915112345671,Eve,A-4\n',
      ),
    ).toStrictEqual([
      row(1, 'phone', 'name', 'code'),
      malformed(2, /^text after a closing quote in field 2: .*check the quoting on line 2$/),
      row(3, '+4915112345679', 'Ana', 'A-2'),
      malformed(4, /^stray quote in field 2: .*check the quoting on line 4$/),
      row(5, '+4915112345671', 'Eve', 'A-4'),
    ]);
  });

  it('spaces after a closing quote and before an opening quote are fine; `""` is a quote', () => {
    expect(parse('a,b,c\n "x" , "y, ""z""" ,w\n')).toStrictEqual([row(1, 'a', 'b', 'c'), row(2, 'x', 'y, "z"', 'w')]);
  });

  it('an unclosed quote closed much later by a stray quote: its line is malformed, each line in between is a row', () => {
    const middle = Array.from({ length: 20 }, (_, i) => `+${i + 10},name${i}`);
    const records = parse(['phone,name', '+1,Ana', '+2,"Bob', ...middle, '+3,5" screen', '+4,Eve', ''].join('\n'));

    expect(records).toStrictEqual([
      row(1, 'phone', 'name'),
      row(2, '+1', 'Ana'),
      malformed(3, 'the quote opened on line 3 closes on line 24, followed by more text'),
      ...middle.map((line, i) => row(i + 4, ...line.split(','))),
      malformed(24, 'stray quote in field 2'),
      row(25, '+4', 'Eve'),
    ]);
  });

  it('the look-ahead of an open quote is bounded: past 4,096 characters the quote counts as never closed', () => {
    const middle = Array.from({ length: 300 }, (_, i) => `+${i + 10},name number ${i}`); // ~7,000 characters
    const records = parse(['phone,name', '+2,"Bob', ...middle, '+3,"Carl"', ''].join('\n'));

    expect(records[1]).toStrictEqual(
      malformed(2, /^unclosed quote in field 2: the quote opened on line 2 is still open after 4,096 characters/),
    );
    expect(records.slice(2)).toStrictEqual([...middle.map((line, i) => row(i + 3, ...line.split(','))), row(303, '+3', 'Carl')]);
  });

  it('a multi-line record with a different field count from the header: only its first line is malformed', () => {
    expect(parse('phone,name\n+1,"Ana\n+2,Bob",x\n+3,Carl\n')).toStrictEqual([
      row(1, 'phone', 'name'),
      malformed(2, 'closes on line 3, but the record it makes has 3 fields where the header has 2'),
      malformed(3, 'stray quote in field 2'),
      row(4, '+3', 'Carl'),
    ]);
  });

  it('a legit quoted multi-line field (delimiters, quotes and blank lines in it) is one row', () => {
    expect(parse('phone,note,code\n+1,"line one,\n\n""two""\nthree",A-1\n+2,x,A-2\n')).toStrictEqual([
      row(1, 'phone', 'note', 'code'),
      row(2, '+1', 'line one,\n\n"two"\nthree', 'A-1'),
      row(6, '+2', 'x', 'A-2'),
    ]);
  });

  it('a quote left open at the end of the file rejects its line and reads the lines after it', () => {
    // The pre-scan refuses such files in openCsv; the parser still answers every line.
    expect(parse('h,v\n+1,"a\n+2,b\n')).toStrictEqual([
      row(1, 'h', 'v'),
      malformed(2, 'never closes before the end of the file'),
      row(3, '+2', 'b'),
    ]);
    expect(parse('h\na,"x\r')).toStrictEqual([row(1, 'h'), malformed(2, 'never closes before the end of the file')]);
  });

  it('no problem text holds a value from the file', () => {
    const records = parse(
      'phone,name\n+4915112345678,"Secret" Name\n+4915112345679,Se"cret\n+4915112345670,"Secret\n+4915112345671,Other"x\n',
    );
    for (const record of records.filter((r) => r.kind === 'malformed')) {
      expect(record.kind === 'malformed' && record.problem).not.toMatch(/Secret|4915|Other/);
    }
    expect(records.filter((r) => r.kind === 'malformed').map((r) => r.line)).toStrictEqual([2, 3, 4, 5]);
  });
});

describe('RecordParser: size limits', () => {
  it(`a field of ${FIELD_LIMIT + 1} characters → FIELD_TOO_LONG; ${FIELD_LIMIT} is fine`, () => {
    const ok = 'x'.repeat(FIELD_LIMIT);
    expect(parse(`h,v\n+1,${ok}\n+2,${ok}x\n+3,"${ok}"\n+4,"${ok}x"\n`)).toStrictEqual([
      row(1, 'h', 'v'),
      row(2, '+1', ok),
      malformed(3, /^field 2 is 4,097 characters long; no template value can be longer than 4,096 characters/, 'FIELD_TOO_LONG'),
      row(4, '+3', ok),
      malformed(5, /^field 2 is 4,097\+? characters long/, 'FIELD_TOO_LONG'),
    ]);
  });

  it('a 5 MB cell fed in 64 KiB chunks → FIELD_TOO_LONG with a short problem, and the rows after it read', () => {
    const bytes = Buffer.from(`h,v,w\n+1,${'x'.repeat(5_000_000)},end\n+2,ok,w\n`);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
    const records = parseChunks(chunks);

    expect(records).toStrictEqual([
      row(1, 'h', 'v', 'w'),
      malformed(2, /^field 2 is 65,533\+ characters long \(line 2 is 5,000,007 characters long\); no template value/, 'FIELD_TOO_LONG'),
      row(3, '+2', 'ok', 'w'),
    ]);
    expect(records[1]?.kind === 'malformed' && records[1].problem.length).toBeLessThan(400);
  });

  it(`a record over ${RECORD_LIMIT} characters of short fields → FIELD_TOO_LONG for the record`, () => {
    const wide = Array.from({ length: 20_000 }, () => 'abcd').join(',');
    expect(parse(`h\n${wide}\n+2\n`)).toStrictEqual([
      row(1, 'h'),
      malformed(2, /^the record is 65,536\+ characters long \(line 2 is 99,999 characters long\)/, 'FIELD_TOO_LONG'),
      row(3, '+2'),
    ]);
  });
});
