import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { spreadsheetSafe } from '../../src/campaigns/report/spreadsheet-safe.js';
import { escapeHtml } from '../../src/dashboard/html.js';
import { createLogger } from '../../src/logging/logger.js';
import {
  OPERATOR_TEXT_PATTERN,
  checkOperatorText,
  findControlCharacter,
  printable,
  printableBlock,
  printableJson,
  refuseControlCharacters,
} from '../../src/text/operator-text.js';

/** What a hostile client sends: a window-title change, an erase-line, NUL, CR/LF and a right-to-left override. */
const HOSTILE = 'ok\u001b]0;pwned\u0007 \u001b[2K\u0000\r\nfake line \u202etxt.exe \u009b31m';
/** Every character the rule refuses, one of each kind. */
const REFUSED = ['\u0000', '\u0007', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029', '\u202a', '\u202e'];
const BIDI_ISOLATES = ['\u2066', '\u2067', '\u2068', '\u2069'];
/** What a terminal or a page would act on: C0 but for the layout ones, DEL, C1, bidi. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (caught) {
    return caught;
  }
  return undefined;
}

describe('operator text: refused at the edge', () => {
  it.each([...REFUSED, ...BIDI_ISOLATES])('refuses U+%s wherever it is', (character) => {
    expect(findControlCharacter(`a${character}b`)).toMatchObject({ position: 2 });
    expect(OPERATOR_TEXT_PATTERN.test(`reason ${character}`)).toBe(false);
  });

  it('takes any other text: accents, emoji, right-to-left script with its marks, formulas and markup', () => {
    for (const text of ['Ação de Natal', '🎉 promo', 'שלום\u200fעולם', 'مرحبا', '=HYPERLINK("x")', '<b>x</b> & y', '']) {
      expect(findControlCharacter(text)).toBeUndefined();
      expect(OPERATOR_TEXT_PATTERN.test(text)).toBe(true);
      expect(checkOperatorText(text, 'reason')).toBe(text);
    }
  });

  it('names the field, the character and its position (as a reader counts: an emoji is one), never the text', () => {
    const error = refusal(() => checkOperatorText('🎉🎉x\u001b]0;secret\u0007', '--reason', 'the pause reason'));
    expect(error).toMatchObject({
      code: 'TEXT_CONTROL_CHARACTER',
      message: '--reason: the pause reason contains a control character, invisible in most editors (U+001B ESC at character 4)',
    });
    expect((error as Error).message).not.toContain('secret');
    expect(refusal(() => checkOperatorText('promo\u202egpj.exe', 'name'))).toMatchObject({
      message: 'name: the text contains a bidirectional override or isolate, which can disguise text (U+202E RLO at character 6)',
    });
    expect(refusal(() => checkOperatorText('a\r\nb', 'reason'))).toMatchObject({
      message: 'reason: the text contains a line break; give it on one line (U+000D CR at character 2)',
    });
  });

  it('as a zod check: the same rule, its pattern a plain class of \\u escapes in the JSON schema, the message naming the character', () => {
    const body = z.strictObject({ reason: refuseControlCharacters(z.string().max(500)).optional() });
    expect(body.safeParse({ reason: 'price list is wrong' }).success).toBe(true);
    const refused = body.safeParse({ reason: HOSTILE });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toMatchObject([
      { path: ['reason'], message: 'contains a control character, invisible in most editors (U+001B ESC at character 3)' },
    ]);
    const pattern = (z.toJSONSchema(body) as unknown as { properties: { reason: { pattern: string } } }).properties.reason.pattern;
    expect(pattern).toBe(OPERATOR_TEXT_PATTERN.source);
    expect(pattern).toMatch(/^\^\[\^(\\u[0-9a-f]{4}(-\\u[0-9a-f]{4})?)+\]\*\$$/);
  });
});

describe('operator text: neutralised where printed', () => {
  it('printable (a terminal line): every refused character visible as its escape, nothing dropped, nothing raw', () => {
    const shown = printable(HOSTILE);
    expect(shown).toBe('ok\\x1b]0;pwned\\x07 \\x1b[2K\\x00\\r\\nfake line \\u202etxt.exe \\x9b31m');
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).not.toMatch(/[\n\r\t]/);
    expect(printable('Ação 🎉 שלום\u200fעולם')).toBe('Ação 🎉 שלום\u200fעולם');
  });

  it('printableBlock (a page, a CSV cell): keeps tab and line breaks, escapes the rest as \\u', () => {
    expect(printableBlock('a\tb\r\nc\u0000d\u202ee')).toBe('a\tb\r\nc\\u0000d\\u202ee');
  });

  it('printableJson: the same document to a parser, with no C1 or bidi character raw', () => {
    const value = { reason: HOSTILE, name: 'x\u0085\u2028\u2066' };
    const json = printableJson(JSON.stringify(value, null, 2));
    expect(json).not.toMatch(ACTIVE);
    expect(JSON.parse(json)).toStrictEqual(value);
  });

  it('the pages: escapeHtml escapes markup and shows control and bidi characters as escapes', () => {
    expect(escapeHtml('<b>\u202e</b>\u0000 & "x"')).toBe('&lt;b&gt;\\u202e&lt;/b&gt;\\u0000 &amp; &quot;x&quot;');
    // JSON put into an attribute still parses to the same data.
    const data = { label: 'x\u009b\u202e' };
    const attribute = escapeHtml(JSON.stringify(data)).replace(/&quot;/g, '"');
    expect(JSON.parse(attribute)).toStrictEqual(data);
  });

  it('a log line: JSON with nothing a terminal tailing it acts on, the same data to a parser', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    logger.warn({ reason: HOSTILE }, 'Meta says \u202eno\u0085');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(ACTIVE);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ reason: HOSTILE, msg: 'Meta says \u202eno\u0085' });
  });

  it('a CSV report cell: escapes control characters and still quotes formulas', () => {
    expect(spreadsheetSafe('Meta says \u001b[31mno\u202e')).toBe('Meta says \\u001b[31mno\\u202e');
    expect(spreadsheetSafe('=HYPERLINK("x")\u0007')).toBe('\'=HYPERLINK("x")\\u0007');
  });
});
