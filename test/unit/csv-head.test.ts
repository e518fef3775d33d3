import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCsvHead, type CsvHeadRow } from '../../src/csv/csv-head.js';
import { openCsv } from '../../src/csv/csv-records.js';
import { detectDelimiter } from '../../src/csv/delimiter.js';

/**
 * The New campaign page reads the chosen file's first bytes with readCsvHead (bundled into its
 * script from src/csv), so its delimiter, header and row numbers are those `campaign send` and
 * the API find reading the whole file with openCsv: the page previews what will be sent, and a
 * dry run's refused row numbers point at the rows it shows.
 */
const TRICKY: [string, string][] = [
  ["Excel's empty rows before the header", ';;;\r\n;;;\r\nphone;name;city\r\n+4915100000001;Ana;Köln\r\n;;;\r\n+4915100000002;Bo;Bonn\r\n'],
  ['blank lines and spaces before a header of pipes', '\r\n  \r\n;;;;\r\nphone|name\r\n+1|a,b\r\n'],
  ['a tie of tab and pipe: the earlier candidate, tab', 'phone\tname|x\n+1\tAna|B\n'],
  ['delimiters inside a quoted header name do not count', '"phone;mobile;cell",name\n+1,a;b;c\n'],
  ['a quoted header name with a line break', '"first\nname";phone\nAna;+1\n'],
  ['two BOMs and semicolons', '\ufeff\ufeffphone;name\n+1;a\n'],
  ['a malformed record keeps its row number', 'phone,name\n+1,"a"b\n+2,c\n'],
  ['a value over lines, as Excel writes line breaks in a cell', 'phone,note\n+1,"line one\nline two"\n+2,x\n'],
  ['a lone CR ends lines (old Mac exports)', 'phone,name\r+1,a\r+2,b\r'],
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-head-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the service reads from the whole file: delimiter, header, and each readable row by its row number. */
async function serverRead(text: string, name: string): Promise<{ delimiter: string; header: string[]; rows: CsvHeadRow[] }> {
  const path = join(dir, `${name}.csv`);
  await writeFile(path, text);
  const source = await openCsv(path);
  const rows: CsvHeadRow[] = [];
  let number = 0;
  try {
    for await (const record of source.records) {
      number++;
      if (record.kind === 'row') rows.push({ number, values: record.fields });
    }
  } finally {
    source.close();
  }
  return { delimiter: source.delimiter, header: source.header, rows };
}

describe("the New campaign page reads a file's head as the service reads the file", () => {
  it.each(TRICKY.map(([label, text], i) => [label, text, i] as const))('%s', async (_label, text, i) => {
    const page = readCsvHead(new TextEncoder().encode(text), 200, true);
    expect(page.delimiter).toBe(detectDelimiter(text));
    expect(page).toEqual(await serverRead(text, `tricky-${i}`));
  });

  it("passes over Excel's empty rows to the header, where a split of the first line would find only empty names", () => {
    const head = readCsvHead(new TextEncoder().encode(TRICKY[0]?.[1] ?? ''), 200, true);
    expect(head).toEqual({
      delimiter: ';',
      header: ['phone', 'name', 'city'],
      rows: [
        { number: 1, values: ['+4915100000001', 'Ana', 'Köln'] },
        { number: 2, values: ['+4915100000002', 'Bo', 'Bonn'] },
      ],
    });
  });

  it('leaves out the last line of a head that is not the whole file (it may be cut), and a line cut inside a character', () => {
    const bytes = new TextEncoder().encode('phone,name\n+1,Ana\n+2,Zoë');
    expect(readCsvHead(bytes.subarray(0, bytes.length - 1), 200, false).rows).toEqual([{ number: 1, values: ['+1', 'Ana'] }]);
    expect(readCsvHead(bytes, 1, true).rows).toHaveLength(1);
  });
});
