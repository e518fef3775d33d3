import { open } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { prescanQuotes, type PrescanResult } from '../../src/csv/quote-prescan.js';
import { csvFiles } from '../support/csv-reading.js';

const files = csvFiles('csv-prescan-test');

afterAll(files.cleanup);

async function prescan(content: string | Buffer, delimiter = ',', readBytes?: number): Promise<PrescanResult> {
  const handle = await open(files.write(content));
  try {
    return await prescanQuotes(handle, delimiter, readBytes);
  } finally {
    await handle.close();
  }
}

/** Quotes of every kind, CRLF, Unicode spaces before and after quotes, BOMs; a quote left open at the end. */
const TRICKY = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]),
  Buffer.from(
    'phone;note\r\n' +
      '+1;\u3000"a;\r\nb"\u00a0\r\n' + // a quoted field after and before Unicode spaces, spanning lines
      '\r\n' +
      '+2;"x ""y"" z"\r\n' +
      '+3;5" screen "x\r\n' + // stray quotes: the line is passed over, the second quote opens nothing
      '+4;"Bruno" "Costa\r\n' + // text after a closing quote: passed over too
      ';;\r\n' +
      '+5;\u2003"open\r\n' +
      '+6;still open\r\n',
  ),
]);

describe('prescanQuotes', () => {
  it('finds a quote left open at the end of the file: its line and field, and the last line', async () => {
    expect(await prescan(TRICKY, ';')).toStrictEqual({
      lines: 10,
      records: 6,
      unclosed: { line: 9, field: 2, inHeader: false, lastLine: 10 },
    });
  });

  it('gives the same answer whatever the read size (CRLF, "", multi-byte spaces and BOMs cut between reads)', async () => {
    const expected = await prescan(TRICKY, ';');
    for (const readBytes of [1, 2, 3, 4, 5, 6, 7, 11, 64]) {
      expect(await prescan(TRICKY, ';', readBytes), `read size ${readBytes}`).toStrictEqual(expected);
    }
  });

  it('a Unicode space before a quote still opens it (the parser reads it so); plain text before a quote does not', async () => {
    expect((await prescan('h\n\u3000"abc\n')).unclosed).toMatchObject({ line: 2, field: 1 });
    expect((await prescan('h\nx"abc\n')).unclosed).toBeUndefined();
  });

  it('closed quotes, escaped quotes and stray quotes leave nothing open', async () => {
    expect(await prescan('h,v\n+1,"a\nb"\n+2,"say ""hi"""\n+3,12" pizza\n+4,"x" y"\n')).toStrictEqual({ lines: 6, records: 5 });
  });

  it('a quote open in the header is marked as such', async () => {
    expect((await prescan('\n\nphone,"name\n+1,Ana\n')).unclosed).toStrictEqual({ line: 3, field: 2, inHeader: true, lastLine: 4 });
  });

  it('counts lines with CR, LF and CRLF, and a last line without a break', async () => {
    expect(await prescan('a\rb\r\nc\nd')).toStrictEqual({ lines: 4, records: 4 });
    expect(await prescan('a\rb\r\nc\nd\r\n')).toStrictEqual({ lines: 4, records: 4 });
    expect(await prescan('')).toStrictEqual({ lines: 1, records: 0 });
  });
});
