import { describe, expect, it } from 'vitest';
import type { CsvRecord } from '../../src/csv/csv-records.js';
import { RecordParser, startLine } from '../../src/csv/record-parser.js';

/** Feeds the parser the given chunks, as the file stream would, and collects what it yields. */
async function parseChunks(chunks: readonly Buffer[], delimiter = ','): Promise<CsvRecord[]> {
  const parser = new RecordParser(delimiter);
  const out: CsvRecord[] = [];
  const done = (async () => {
    for await (const record of parser) out.push(record as CsvRecord);
  })();
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  await done;
  return out;
}

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
  { kind: 'row', fields: ['phone', 'note'], line: 1 },
  { kind: 'row', fields: ['+1', 'a\nb'], line: 2 },
  { kind: 'row', fields: ['+2', 'x; "y"'], line: 5 },
  { kind: 'malformed', line: 6, problem: expect.stringContaining('stray quote in field 2') as string },
  { kind: 'row', fields: ['+4', 'Zoë 😀 東京'], line: 8 },
  { kind: 'malformed', line: 9, problem: expect.stringContaining('lines 9–11 were read as this one record') as string },
  { kind: 'row', fields: ['+8', 'last'], line: 13 },
];

describe('RecordParser', () => {
  it('yields rows and malformed records in file order, with the line each starts on', async () => {
    expect(await parseChunks([Buffer.from(MIXED)], ';')).toStrictEqual(MIXED_EXPECTED);
  });

  it('gives the same records wherever the file is cut into chunks (CRLF, quotes, UTF-8 split across them)', async () => {
    const bytes = Buffer.from(MIXED);
    for (let cut = 1; cut < bytes.length; cut++) {
      const records = await parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)], ';');
      expect(records, `cut at byte ${cut}`).toStrictEqual(MIXED_EXPECTED);
    }
  });

  it('gives the same records when fed one byte at a time', async () => {
    const bytes = Buffer.from(MIXED);
    const chunks = Array.from(bytes, (byte) => Buffer.from([byte]));
    expect(await parseChunks(chunks, ';')).toStrictEqual(MIXED_EXPECTED);
  });

  it.each([
    ['with', '\n\n'],
    ['without', ''],
  ])('a malformed last record reaches to its own end, %s blank lines after it', async (_label, after) => {
    // The quote after "a" is read as closing, then stays open until line 3: one record, lines 2–3.
    const records = await parseChunks([Buffer.from(`h,v\n+1,"a"b\nc"${after}`)]);
    expect(records).toStrictEqual([
      { kind: 'row', fields: ['h', 'v'], line: 1 },
      { kind: 'malformed', line: 2, problem: expect.stringContaining('lines 2–3 were read as this one record') as string },
    ]);
  });

  it('keeps a lone CR at the end of a chunk when no LF follows', async () => {
    const records = await parseChunks([Buffer.from('a,"x\r'), Buffer.from('y"\n')]);
    expect(records).toStrictEqual([{ kind: 'row', fields: ['a', 'x\ry'], line: 1 }]);
  });

  it('a CR that ends the file is kept', async () => {
    const records = await parseChunks([Buffer.from('h\na,"x\r')]);
    expect(records).toStrictEqual([
      { kind: 'row', fields: ['h'], line: 1 },
      { kind: 'malformed', line: 2, problem: expect.stringContaining('unclosed quote') as string },
    ]);
  });
});

describe('startLine', () => {
  it.each([
    ['one line and its delimiter', 7, 'a,b\n', 7],
    ['the last line of the file', 7, 'a,b', 7],
    ['two line breaks inside quotes', 9, 'a,"x\ny\nz"\n', 7],
    ['blank lines before the record', 9, '\n  \n\na,b\n', 9],
    ['blank lines before a multi-line record', 9, '\n\na,"x\ny"\n', 8],
    ['a break just before the end of the file (open quote)', 8, 'a,"x\ny\n', 7],
    ['spaces then a quoted multi-line field', 8, '  "x\ny",b\n', 7],
  ])('%s', (_label, lines, raw, expected) => {
    expect(startLine(lines, raw)).toBe(expected);
  });
});
