import { describe, expect, it } from 'vitest';
import { LineSplitter, BREAK_CR, BREAK_EOF, BREAK_LF, type LineBreak } from '../../src/csv/line-splitter.js';
import { RECORD_LIMIT } from '../../src/csv/limits.js';

interface Line {
  text: string;
  ending: LineBreak;
  dropped: number;
  badBytes: boolean;
}

function split(chunks: readonly string[]): Line[] {
  const lines: Line[] = [];
  const splitter = new LineSplitter((text, ending, dropped, badBytes) => lines.push({ text, ending, dropped, badBytes }));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

const line = (text: string, ending: LineBreak, dropped = 0, badBytes = false): Line => ({ text, ending, dropped, badBytes });

describe('LineSplitter', () => {
  const TEXT = 'a\r\nb\rc\n\nd\r\r\ne\uFFFDf\r';
  const EXPECTED = [
    line('a', BREAK_LF),
    line('b', BREAK_CR),
    line('c', BREAK_LF),
    line('', BREAK_LF),
    line('d', BREAK_CR),
    line('', BREAK_LF),
    line('e\uFFFDf', BREAK_CR, 0, true),
  ];

  it('LF, CRLF and lone CR each end one line, wherever the text is cut', () => {
    expect(split([TEXT])).toStrictEqual(EXPECTED);
    for (let cut = 0; cut <= TEXT.length; cut++) {
      expect(split([TEXT.slice(0, cut), TEXT.slice(cut)]), `cut at ${cut}`).toStrictEqual(EXPECTED);
    }
    expect(split([...TEXT])).toStrictEqual(EXPECTED);
  });

  it('a last line without a break ends with the file', () => {
    expect(split(['x\ny'])).toStrictEqual([line('x', BREAK_LF), line('y', BREAK_EOF)]);
  });

  it('never holds more than RECORD_LIMIT characters of a line: a 5 MB line arrives cut, with the rest counted', () => {
    const chunk = 'x'.repeat(65_536);
    const chunks = [...Array.from({ length: 76 }, () => chunk), 'x'.repeat(1_000) + '\nnext\n'];
    const lines = split(chunks);

    expect(lines).toHaveLength(2);
    expect(lines[0]?.text.length).toBe(RECORD_LIMIT);
    expect(lines[0]?.dropped).toBe(76 * 65_536 + 1_000 - RECORD_LIMIT);
    expect(lines[1]).toStrictEqual(line('next', BREAK_LF));
  });

  it('a long line inside one chunk is cut the same way', () => {
    const [first] = split([`${'y'.repeat(RECORD_LIMIT + 10)}\n`]);

    expect(first).toStrictEqual(line('y'.repeat(RECORD_LIMIT), BREAK_LF, 10));
  });
});
