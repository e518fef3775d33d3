import { describe, expect, it } from 'vitest';
import { MAX_WHERE_CHARS, parseWhere } from '../../src/audiences/where/parse-where.js';
import { isAppError } from '../../src/errors/app-error.js';

/** The message parseWhere refuses `expression` with, checking its code. */
function refusal(expression: string, optionName?: string): string {
  try {
    parseWhere(expression, optionName);
  } catch (error) {
    if (isAppError(error, 'AUDIENCE_WHERE_INVALID')) return error.message;
    throw error;
  }
  throw new Error(`parseWhere accepted ${expression}`);
}

describe('a bad --where expression is refused at its position, saying what was expected and how to write it', () => {
  it.each([
    // `in` without a list, as the example.
    [
      'country = "DE" and tier in gold',
      'at position 28 ("tier in gold"): expected "(" after "in"; write the values in parentheses: tier in ("gold")',
    ],
    [
      'tier not in "gold"',
      'at position 13 ("not in "gold""): expected "(" after "not in"; write the values in parentheses: tier not in ("gold")',
    ],
    ['tier in', 'at position 8 (the end, after "tier in"): expected "(" after "in"; write the values in parentheses: tier in ("a", "b")'],
    // An unclosed quote, at the quote that opens it.
    ['name = "Bob and x = 1', 'at position 8 ("name = "Bob and x = 1"): a quoted value starts here and is never closed; end it with "'],
    ["name = 'Bob", 'at position 8 ("name = \'Bob"): a quoted value starts here and is never closed; end it with \''],
    [
      '`first name = "x"',
      'at position 1 ("`first name = "x""): a backquoted attribute name starts here and is never closed; end it with `',
    ],
    // A missing value.
    [
      'country =',
      'at position 10 (the end, after "country ="): expected a value after "=": a quoted text, a number or a date; write country = "value"',
    ],
    [
      'country = and x = 1',
      'at position 11 ("country = and"): expected a value after "=": a quoted text, a number or a date; write country = "value"',
    ],
    ['country = DE', 'at position 11 ("country = DE"): a text value is written in quotes; write country = "DE"'],
    ['tier in ("gold", silver)', 'at position 18 (""gold", silver"): a text value is written in quotes; write tier in ("silver")'],
    // An operator this language does not have.
    ['country == "DE"', 'at position 9 ("country =="): "==" is not an operator here; write = (one equals sign) to compare'],
    ['country <> "DE"', 'at position 9 ("country <>"): "<>" is not an operator here; write != for "not equal"'],
    ['a = 1 && b = 2', 'at position 7 ("= 1 &&"): "&&" is not an operator here; write and'],
    [
      'country like "D%"',
      'at position 9 ("country like"): expected an operator after country, one of =, !=, <, <=, >, >=, in (…), not in (…), contains, ' +
        'is empty or is not empty; for a part of the text, write country contains "value"',
    ],
    ['country "DE"', 'at position 9 ("country "DE""): expected an operator between country and its value; write country = "DE"'],
    [
      'country not = "DE"',
      'at position 13 ("country not ="): expected "in" after "country not"; write country not in ("a", "b"), or country != "a"',
    ],
    [
      'city is "Wien"',
      'at position 9 ("city is "Wien""): expected "empty" after "is"; write city is empty or city is not empty; ' +
        'to compare with a value, write city = "Wien"',
    ],
    // Tokens after a complete condition.
    [
      'country = "DE" "AT"',
      'at position 16 ("= "DE" "AT""): expected "and", "or" or the end after a condition; join conditions with and or or; ' +
        'for several values of one attribute, write country in ("a", "b")',
    ],
    ['a = 1 b = 2', 'at position 7 ("= 1 b"): expected "and", "or" or the end after a condition; join conditions with and or or'],
    // Unbalanced parentheses.
    ['(a = 1 or b = 2', 'at position 16 (the end, after "= 2"): expected ")" to close the "(" at position 1; add ")"'],
    ['a = 1 or b = 2)', 'at position 15 ("= 2)"): ")" closes no "("; remove it, or add the "(" it should close'],
    ['(a = 1 b = 2)', 'at position 8 ("= 1 b"): expected ")", "and" or "or" after a condition inside the "(" at position 1'],
    ['()', 'at position 2 ("()"): expected a condition before ")"; write one inside the parentheses, or remove them'],
    // Conditions and keywords out of place.
    [
      'a = 1 and',
      'at position 10 (the end, after "1 and"): expected a condition after "and"; add one, as in tier = "gold", or remove the "and"',
    ],
    [
      'or a = 1',
      'at position 1 ("or"): expected a condition, found the keyword "or"; remove it, or backquote an attribute of that name: `or` = "x"',
    ],
    [
      '"DE" = country',
      'at position 1 (""DE""): expected an attribute name, found a value; a condition names the attribute first: country = "DE"',
    ],
    // Escapes, values and characters.
    ['a = "C:\\temp"', 'at position 8 ("a = "C:\\t"): a backslash escapes only a quote or a backslash; write \\\\ for a backslash'],
    [
      'a = 12abc',
      'at position 5 ("a = 12abc"): 12abc is neither a number (12, -12.5) nor a date (2026-11-01); quote a text value: "12abc"',
    ],
    ['a in ()', 'at position 7 ("in ()"): the list is empty; give at least one value: a in ("a")'],
    [
      'a in ("x" "y")',
      'at position 11 ("("x" "y""): expected "," or ")" after a value in the list; separate the values with commas: ("a", "b")',
    ],
    ['a = “x”', 'at position 5 ("a = “"): typographic quotes do not quote a value; write straight ones: "DE" or \'DE\''],
    [
      'Straße = "x"',
      'at position 5 ("Straß"): a bare attribute name holds only A–Z, a–z, 0–9, _, . and -; write any other name in backquotes: `Straße`',
    ],
    ['`` = "x"', 'at position 1 ("``"): the backquotes hold no attribute name; write the name between them: `first name`'],
    [
      'a = 1 ; b = 2',
      'at position 7 ("= 1 ;"): expected an attribute name, a value, an operator, a parenthesis or a comma here; remove this character',
    ],
  ])('%s', (expression, message) => {
    expect(refusal(expression)).toBe(`--where: ${message}`);
  });

  it('refuses an empty or blank expression', () => {
    expect(refusal('')).toBe('--where: at position 1: the expression is empty; write a condition, as in country = "DE"');
    expect(refusal('   ')).toBe('--where: at position 1: the expression is empty; write a condition, as in country = "DE"');
  });

  it('refuses dates it cannot read rather than comparing them as text', () => {
    const forms = 'write a date as 2026-11-01, or a date-time with its zone as 2026-11-01T09:30Z or 2026-11-01T09:30+02:00';
    expect(refusal('signup > 2026-02-30')).toBe(
      `--where: at position 10 ("signup > 2026-02-30"): 2026-02-30 is not a date this filter reads; ${forms}`,
    );
    expect(refusal('signup > 2026-11-01T10:00')).toBe(
      `--where: at position 10 ("signup > 2026-11-01T10:00"): 2026-11-01T10:00 is not a date this filter reads; ${forms}`,
    );
    expect(refusal('signup < "2026-11-01 10:00"')).toBe(
      `--where: at position 10 ("signup < "2026-11-01 10:00""): "2026-11-01 10:00" is not a date this filter reads; ${forms}`,
    );
    // As text, a quoted value of that shape is fine where nothing is ordered.
    expect(parseWhere('signup = "2026-11-01 10:00"').matches({ signup: '2026-11-01 10:00' })).toBe(true);
  });

  it('refuses nesting deeper than 50, at the 51st level', () => {
    expect(() => parseWhere(`${'('.repeat(50)}a = 1${')'.repeat(50)}`)).not.toThrow();
    expect(refusal(`${'('.repeat(51)}a = 1${')'.repeat(51)}`)).toBe(
      '--where: at position 51 ("((("): parentheses and "not" nest more than 50 deep here; simplify the expression ' +
        '(and and or need no parentheses of their own; tier in ("gold", "silver") replaces a chain of or)',
    );
    expect(refusal(`${'not '.repeat(30)}${'('.repeat(21)}a = 1${')'.repeat(21)}`)).toMatch(/^--where: at position 141 \("\(\(\("\): /);
    // A long chain of and/or nests nothing.
    expect(parseWhere(Array.from({ length: 300 }, (_, i) => `a = ${i}`).join(' or ')).matches({ a: '299' })).toBe(true);
  });

  it(`refuses an expression longer than ${MAX_WHERE_CHARS} characters, counting them as a reader does`, () => {
    const list = (count: number): string => `a in (${Array.from({ length: count }, () => '"x"').join(',')})`;
    expect(list(998)).toHaveLength(3998);
    expect(() => parseWhere(`${list(998)}  `)).not.toThrow();
    expect(refusal(`${list(998)}   `)).toBe(
      '--where: at position 4001: the expression has 4,001 characters; give at most 4,000 ' +
        '(tier in ("gold", "silver") is shorter than a chain of or)',
    );
    // An emoji is one character (two UTF-16 units).
    expect(() => parseWhere(`a = "${'😀'.repeat(3990)}"`)).not.toThrow();
  });

  it('refuses control characters, even a tab, naming the position and never echoing them', () => {
    expect(refusal('a\t= 1')).toBe('--where: at position 2: the expression contains a tab; use a space (U+0009 TAB at character 2)');
    const message = refusal('a = "\u001b[31m"');
    expect(message).toBe(
      '--where: at position 6: the expression contains a control character, invisible in most editors (U+001B ESC at character 6)',
    );
  });

  it('counts positions in characters as a reader does, and names the option given', () => {
    expect(refusal('`😀😀` = x', 'where')).toBe(
      'where: at position 8 ("`😀😀` = x"): a text value is written in quotes; write `😀😀` = "x"',
    );
  });

  it('shortens long excerpts and suggestions', () => {
    const long = 'x'.repeat(100);
    expect(refusal(`a = "${long}" y`)).toBe(
      `--where: at position 108 ("…${'x'.repeat(27)}" y"): ` +
        'expected "and", "or" or the end after a condition; join conditions with and or or',
    );
    expect(refusal(`a = ${long}`)).toContain(`write a = "${'x'.repeat(39)}…"`);
  });
});
