import { describe, expect, it } from 'vitest';
import {
  MAX_BODY_CHARS,
  MAX_HEADER_CHARS,
  VALUE_PROBLEM_TEXT,
  collapseWhitespace,
  valueProblem,
  valueProblemDetail,
  type ValueProblem,
} from '../../src/campaigns/parameter-rules.js';
import { REJECTION_REASONS } from '../../src/campaigns/rejection-reasons.js';

describe('valueProblem', () => {
  it.each([
    ['A-99812'],
    ['Ana Lima'],
    ['a  b  c  d'],
    ['4 spaces:    ok'],
    ['    leading four'],
    ['trailing four    '],
    ['Zoë – £25.00 🎉'],
    ['x'.repeat(5000)],
  ])('%j → no problem', (value) => {
    expect(valueProblem(value)).toBeUndefined();
  });

  it.each([
    ['', 'VALUE_EMPTY'],
    ['\n', 'VALUE_LINE_BREAK'],
    ['Ana\nLima', 'VALUE_LINE_BREAK'],
    ['Ana\r\nLima', 'VALUE_LINE_BREAK'],
    ['Ana\rLima', 'VALUE_LINE_BREAK'],
    ['Ana\n', 'VALUE_LINE_BREAK'],
    ['\tAna', 'VALUE_TAB'],
    ['Ana\tLima', 'VALUE_TAB'],
    ['Ana     Lima', 'VALUE_SPACES'],
    ['     leading five', 'VALUE_SPACES'],
    ['trailing five     ', 'VALUE_SPACES'],
    ['     ', 'VALUE_SPACES'],
    ['a' + ' '.repeat(20) + 'b', 'VALUE_SPACES'],
  ] as [string, ValueProblem][])('%j → %s', (value, problem) => {
    expect(valueProblem(value)).toBe(problem);
  });

  it('a line break is reported before a tab or a run of spaces', () => {
    expect(valueProblem('a\t\n     b')).toBe('VALUE_LINE_BREAK');
  });

  it('a tab is reported before a run of spaces', () => {
    expect(valueProblem('a     \tb')).toBe('VALUE_TAB');
  });

  it('4 spaces, a tab-free gap, then 4 more is not a run of 5', () => {
    expect(valueProblem('a    b    c')).toBeUndefined();
  });
});

describe('valueProblem: hostile characters', () => {
  it.each([
    ['Ana\u001b[31mred', 'VALUE_CONTROL_CHAR'],
    ['Ana\u007f', 'VALUE_CONTROL_CHAR'],
    ['A\u000bB', 'VALUE_CONTROL_CHAR'],
    ['A\u000cB', 'VALUE_CONTROL_CHAR'],
    ['\u0001Ana', 'VALUE_CONTROL_CHAR'],
    ['Ana\u0000', 'VALUE_CONTROL_CHAR'],
    ['A\u009bB', 'VALUE_CONTROL_CHAR'],
    ['Ana\u0085Lima', 'VALUE_LINE_BREAK'],
    ['Ana\u2028Lima', 'VALUE_LINE_BREAK'],
    ['Ana\u2029Lima', 'VALUE_LINE_BREAK'],
    ['Invoice \u202egpj.exe', 'VALUE_BIDI_CONTROL'],
    ['a\u202ab', 'VALUE_BIDI_CONTROL'],
    ['a\u2066b\u2069', 'VALUE_BIDI_CONTROL'],
    ['\u200b', 'VALUE_EMPTY'],
    ['\u200b\u200c\u200d\u2060', 'VALUE_EMPTY'],
    ['\u3164', 'VALUE_EMPTY'],
    ['\u115f\u1160', 'VALUE_EMPTY'],
    ['\u200e\u200f', 'VALUE_EMPTY'],
    ['\u00ad\ufeff\u2800', 'VALUE_EMPTY'],
    ['\u00a0\u2003\u3000', 'VALUE_EMPTY'],
  ] as [string, ValueProblem][])('%j → %s', (value, problem) => {
    expect(valueProblem(value)).toBe(problem);
  });

  it.each([['\u200fשלום עולם'], ['مرحبا\u200f بك'], ['👨‍👩‍👧‍👦 family'], ['❤️ love'], ['Zoë']])(
    '%j (visible text, marks and joiners inside) → no problem',
    (value) => {
      expect(valueProblem(value)).toBeUndefined();
    },
  );

  it('the detail names the character and where it is', () => {
    expect(valueProblemDetail('Ana\u001b[31m', 'VALUE_CONTROL_CHAR')).toMatch(/\(U\+001B ESC at character 4\)$/);
    expect(valueProblemDetail('x\u202ey', 'VALUE_BIDI_CONTROL')).toMatch(/\(U\+202E RLO at character 2\)$/);
    expect(valueProblemDetail('', 'VALUE_EMPTY')).toBe(VALUE_PROBLEM_TEXT.VALUE_EMPTY);
  });

  it('--fix-whitespace collapses NEL and the Unicode separators, never control or bidi characters', () => {
    expect(collapseWhitespace('Ana\u0085\u2028\u2029Lima')).toBe('Ana Lima');
    expect(valueProblem(collapseWhitespace('A\u001bB'))).toBe('VALUE_CONTROL_CHAR');
    expect(valueProblem(collapseWhitespace('A\u202eB'))).toBe('VALUE_BIDI_CONTROL');
  });
});

describe('collapseWhitespace', () => {
  it.each([
    ['Ana\nLima', 'Ana Lima'],
    ['Ana\r\nLima', 'Ana Lima'],
    ['Ana\rLima', 'Ana Lima'],
    ['Ana\t\tLima', 'Ana Lima'],
    ['Ana     Lima', 'Ana Lima'],
    ['Ana  Lima', 'Ana Lima'],
    ['Ana \n\t \r\n Lima', 'Ana Lima'],
    ['a\nb\tc     d', 'a b c d'],
    ['  Ana  ', 'Ana'],
    ['\nAna\t', 'Ana'],
    [' \n\t\r ', ''],
    ['', ''],
  ])('%j → %j', (value, collapsed) => {
    expect(collapseWhitespace(value)).toBe(collapsed);
  });

  it.each([['Ana Lima'], ['Zoë – 50% off 🎉'], ['A-99812']])('%j is left unchanged', (value) => {
    expect(collapseWhitespace(value)).toBe(value);
  });

  it.each([['Ana\nLima'], ['a\tb'], ['a      b'], ['\r\n x \r\n'], ['a \t\n b  c']])('the result of %j passes valueProblem', (value) => {
    expect(valueProblem(collapseWhitespace(value))).toBeUndefined();
  });
});

describe('VALUE_PROBLEM_TEXT and the limits', () => {
  it('has a text for exactly the six value problems, each a rejection reason', () => {
    expect(Object.keys(VALUE_PROBLEM_TEXT).sort()).toStrictEqual([
      'VALUE_BIDI_CONTROL',
      'VALUE_CONTROL_CHAR',
      'VALUE_EMPTY',
      'VALUE_LINE_BREAK',
      'VALUE_SPACES',
      'VALUE_TAB',
    ]);
    for (const reason of Object.keys(VALUE_PROBLEM_TEXT)) expect(REJECTION_REASONS).toHaveProperty(reason);
  });

  it('the texts that can be fixed with --fix-whitespace say so', () => {
    expect(VALUE_PROBLEM_TEXT.VALUE_LINE_BREAK).toContain('--fix-whitespace');
    expect(VALUE_PROBLEM_TEXT.VALUE_TAB).toContain('--fix-whitespace');
    expect(VALUE_PROBLEM_TEXT.VALUE_SPACES).toContain('--fix-whitespace');
    expect(VALUE_PROBLEM_TEXT.VALUE_EMPTY).not.toContain('--fix-whitespace');
    expect(VALUE_PROBLEM_TEXT.VALUE_CONTROL_CHAR).not.toContain('--fix-whitespace');
    expect(VALUE_PROBLEM_TEXT.VALUE_BIDI_CONTROL).not.toContain('--fix-whitespace');
  });

  it('Meta’s limits: body 1,024 characters, text header 60 (reference §4)', () => {
    expect(MAX_BODY_CHARS).toBe(1024);
    expect(MAX_HEADER_CHARS).toBe(60);
  });
});
