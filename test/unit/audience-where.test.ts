import { describe, expect, it } from 'vitest';
import { checkWhereAttributes, parseWhere } from '../../src/audiences/where/parse-where.js';
import { isAppError } from '../../src/errors/app-error.js';

type Contact = Record<string, string>;

/** Which of `contacts` (by their `id`) the expression chooses. */
function chosen(expression: string, contacts: readonly Contact[]): string[] {
  const filter = parseWhere(expression);
  return contacts.filter((contact) => filter.matches(contact)).map((contact) => contact['id'] ?? '?');
}

function holds(expression: string, contact: Contact): boolean {
  return parseWhere(expression).matches(contact);
}

const PEOPLE: Contact[] = [
  { id: 'ann', country: 'DE', tier: 'gold', city: 'Berlin' },
  { id: 'bob', country: 'DE', tier: 'bronze', city: 'Munich' },
  { id: 'cem', country: 'AT', tier: 'silver', city: 'Wien' },
  { id: 'dora', country: 'DE', tier: 'silver', city: '' },
  { id: 'eve', country: ' DE ', tier: 'Gold' },
];

describe('a --where filter, as the issue writes it', () => {
  it('chooses the German gold and silver contacts, reading cells without their surrounding spaces', () => {
    expect(chosen('country = "DE" and tier in ("gold","silver")', PEOPLE)).toEqual(['ann', 'dora']);
  });

  it('keeps the text as written and lists the attributes it reads, each once, in order of appearance', () => {
    const text = 'tier = "gold" or (country != "AT" and `first name` contains "a") or tier is empty';
    const filter = parseWhere(text);
    expect(filter.text).toBe(text);
    expect(filter.attributes).toEqual(['tier', 'country', 'first name']);
  });
});

describe('every operator', () => {
  it('= and != compare the trimmed cell with the literal exactly (case included)', () => {
    expect(chosen('tier = "gold"', PEOPLE)).toEqual(['ann']);
    expect(chosen('tier != "gold"', PEOPLE)).toEqual(['bob', 'cem', 'dora', 'eve']);
    expect(chosen('country = "DE"', PEOPLE)).toEqual(['ann', 'bob', 'dora', 'eve']);
    // Text equality, not numeric: 5 is not 5.0.
    expect(holds('score = 5', { score: '5' })).toBe(true);
    expect(holds('score = 5', { score: '5.0' })).toBe(false);
  });

  it('in and not in take a list of one value or more', () => {
    expect(chosen('tier in ("gold")', PEOPLE)).toEqual(['ann']);
    expect(chosen('tier not in ("gold", "silver")', PEOPLE)).toEqual(['bob', 'eve']);
    expect(chosen('tier NOT IN ("gold", "silver", \'bronze\')', PEOPLE)).toEqual(['eve']);
    expect(holds('age in (30, 40)', { age: '40' })).toBe(true);
  });

  it('contains looks for a part of the text, whatever its case', () => {
    expect(chosen('city contains "E"', PEOPLE)).toEqual(['ann', 'cem']);
    expect(chosen('city contains "mun"', PEOPLE)).toEqual(['bob']);
    expect(holds('name contains "STRASSE"', { name: 'Hauptstrasse 1' })).toBe(true);
  });

  it('is empty and is not empty: an empty, blank or missing cell is empty', () => {
    expect(chosen('city is empty', PEOPLE)).toEqual(['dora', 'eve']);
    expect(chosen('city is not empty', PEOPLE)).toEqual(['ann', 'bob', 'cem']);
    expect(holds('note is empty', { note: '   ' })).toBe(true);
  });

  it('<, <=, >, >= order numbers as numbers', () => {
    const scores = [
      { id: 'nine', score: '9' },
      { id: 'ten', score: '10' },
      { id: 'neg', score: '-12.5' },
      { id: 'blank', score: '' },
    ];
    expect(chosen('score > 9', scores)).toEqual(['ten']);
    expect(chosen('score >= 9', scores)).toEqual(['nine', 'ten']);
    expect(chosen('score < 9', scores)).toEqual(['neg']);
    expect(chosen('score <= -12.5', scores)).toEqual(['neg']);
    expect(chosen('score < "10"', scores)).toEqual(['nine', 'neg']);
  });

  it('a missing attribute reads as empty: != and not in hold for it, and no ordering comparison does', () => {
    expect(holds('country != "DE"', {})).toBe(true);
    expect(holds('country not in ("DE")', {})).toBe(true);
    expect(holds('country = ""', {})).toBe(true);
    for (const operator of ['<', '<=', '>', '>=']) {
      expect(holds(`score ${operator} 0`, {})).toBe(false);
      expect(holds(`score ${operator} 0`, { score: '  ' })).toBe(false);
      expect(holds(`name ${operator} "m"`, { name: '' })).toBe(false);
    }
  });

  it('reads only the contact’s own attributes: a name like constructor or __proto__ is just missing', () => {
    expect(holds('constructor is empty', {})).toBe(true);
    expect(holds('__proto__ is empty and toString is empty', {})).toBe(true);
    expect(holds('constructor = "x"', { constructor: 'x' })).toBe(true);
  });
});

describe('precedence and grouping', () => {
  const contact = { a: '1', b: '2', c: '3' };

  it('binds not tighter than and, and and tighter than or', () => {
    // a = 1 or (b = 9 and c = 9): true; (a = 1 or b = 9) and c = 9 would be false.
    expect(holds('a = 1 or b = 9 and c = 9', contact)).toBe(true);
    expect(holds('b = 9 and c = 9 or a = 1', contact)).toBe(true);
    // (not a = 9) and b = 9: false; not (a = 9 and b = 9) would be true.
    expect(holds('not a = 9 and b = 9', contact)).toBe(false);
    // (not a = 1) or b = 2: true; not (a = 1 or b = 2) would be false.
    expect(holds('not a = 1 or b = 2', contact)).toBe(true);
  });

  it('follows parentheses, and reads keywords in any case', () => {
    expect(holds('(a = 1 or b = 9) and c = 9', contact)).toBe(false);
    expect(holds('a = 1 OR b = 9 AND c = 9', contact)).toBe(true);
    expect(holds('(a = 1 Or b = 9) aNd c = 9', contact)).toBe(false);
    expect(holds('NOT (a = 1 and b = 2)', contact)).toBe(false);
    expect(holds('not not a = 1', contact)).toBe(true);
    expect(holds('(((a = 1)))', contact)).toBe(true);
    expect(holds('a IS NOT EMPTY and b In (2) and c Contains "3" and c Not In (4)', contact)).toBe(true);
  });

  it('takes 50 levels of nesting', () => {
    expect(holds(`${'('.repeat(25)}${'not '.repeat(25)}a = 9${')'.repeat(25)}`, contact)).toBe(true);
  });
});

describe('dates, numbers and text in an ordering comparison', () => {
  const signups = [
    { id: 'oct', signup: '2026-10-31' },
    { id: 'nov', signup: '2026-11-01' },
    { id: 'late', signup: '2026-10-31T23:30:00-02:00' },
    { id: 'noon', signup: '2026-11-01T12:00:00.5Z' },
    { id: 'text', signup: 'soon' },
  ];

  it('compares dates as instants, a bare date being that day at 00:00 UTC, whether the literal is bare or quoted', () => {
    // 2026-10-31T23:30-02:00 is 2026-11-01T01:30Z.
    expect(chosen('signup >= 2026-11-01', signups)).toEqual(['nov', 'late', 'noon', 'text']);
    expect(chosen('signup >= "2026-11-01"', signups)).toEqual(['nov', 'late', 'noon', 'text']);
    expect(chosen('signup < 2026-11-01T01:30Z', signups)).toEqual(['oct', 'nov']);
    expect(chosen('signup <= 2026-11-01T03:30+02:00', signups)).toEqual(['oct', 'nov', 'late']);
    expect(chosen('signup > 2026-11-01T12:00:00.499Z', signups)).toEqual(['noon', 'text']);
  });

  it('compares as text, by code point, when one side is no date: "soon" sorts after digits', () => {
    expect(holds('signup > 2026-11-01', { signup: 'soon' })).toBe(true);
    // A date-time without a zone is no date: compared as text, it still sorts after its day.
    expect(holds('signup > 2026-11-01', { signup: '2026-11-01 10:00' })).toBe(true);
    // 31.12.2026 is not ISO: text, and "3" sorts after "2".
    expect(holds('signup > 2027-01-01', { signup: '31.12.2026' })).toBe(true);
  });

  it('compares numbers numerically only when both are numbers', () => {
    expect(holds('score > 9', { score: '10' })).toBe(true);
    expect(holds('score > "9"', { score: '10' })).toBe(true);
    expect(holds('score > 9', { score: '+10.0' })).toBe(true);
    expect(holds('score > 9', { score: '.5' })).toBe(false);
    // "1,000" is no number here: text, and "1" sorts before "9".
    expect(holds('score > 9', { score: '1,000' })).toBe(false);
    // A year is a number, not a date: the cell is a date, so both are compared as text.
    expect(holds('signup > 2026', { signup: '2026-01-01' })).toBe(true);
  });

  it('orders text by code point, not by locale or UTF-16 unit', () => {
    expect(holds('name < "b"', { name: 'B' })).toBe(true);
    expect(holds('name > "z"', { name: 'é' })).toBe(true);
    // U+1F600 (a surrogate pair) is above U+FF21 by code point, below it by UTF-16 unit.
    expect(holds('name > "Ａ"', { name: '😀' })).toBe(true);
    expect(holds('name < "😀"', { name: 'Ａ' })).toBe(true);
  });

  it('reads leap days and the years before 100 right', () => {
    expect(holds('day > 2028-02-28', { day: '2028-02-29' })).toBe(true);
    expect(holds('day < 0100-01-01', { day: '0099-12-31' })).toBe(true);
    expect(holds('day > 2026-02-28', { day: '2026-02-29' })).toBe(true); // no such day: text
  });
});

describe('quoting, escapes and names', () => {
  it('reads double and single quotes with backslash escapes for the quote and the backslash', () => {
    expect(holds('note = "say \\"hi\\""', { note: 'say "hi"' })).toBe(true);
    expect(holds("note = 'it\\'s'", { note: "it's" })).toBe(true);
    expect(holds('note = "it\'s"', { note: "it's" })).toBe(true);
    expect(holds('path = "C:\\\\temp"', { path: 'C:\\temp' })).toBe(true);
    expect(holds('note = "and or not ( ) , = <"', { note: 'and or not ( ) , = <' })).toBe(true);
    expect(holds('note = ""', { note: '' })).toBe(true);
  });

  it('takes names with spaces, keywords and other characters in backquotes, and matches names exactly', () => {
    expect(holds('`first name` = "Ann"', { 'first name': 'Ann' })).toBe(true);
    expect(holds('`in` = "x" and `Straße` = "y"', { in: 'x', Straße: 'y' })).toBe(true);
    expect(holds('`a\\`b` = "1"', { 'a`b': '1' })).toBe(true);
    expect(holds('Country = "DE"', { country: 'DE' })).toBe(false);
    expect(holds('plan.v2-x_y = "1"', { 'plan.v2-x_y': '1' })).toBe(true);
  });
});

describe('checkWhereAttributes', () => {
  const known = ['country', 'tier', 'first name', 'signup'];

  it('accepts a filter that reads only known attributes', () => {
    expect(() => checkWhereAttributes(parseWhere('country = "DE" and `first name` is not empty'), known)).not.toThrow();
  });

  it('names every unknown attribute, offers a near name and lists the known ones as an expression writes them', () => {
    const error = caught(() => checkWhereAttributes(parseWhere('cuntry = "DE" and Tier = "gold" and zzz = 1'), known));
    expect(isAppError(error, 'AUDIENCE_WHERE_INVALID')).toBe(true);
    expect(error.message).toBe(
      '--where: the audience has no attributes cuntry (did you mean country?), Tier (did you mean tier?), zzz; ' +
        'its attributes are country, tier, `first name`, signup (names match exactly, case included)',
    );
  });

  it('names the option it is given, and says so when the audience has no attribute', () => {
    const error = caught(() => checkWhereAttributes(parseWhere('tier = "gold"'), [], 'where'));
    expect(error.message).toBe(
      'where: the audience has no attribute tier; it has no attribute at all (names match exactly, case included)',
    );
  });

  it('lists at most 30 names, and shows control characters of a CSV header escaped', () => {
    const many = ['bad\u001bname', ...Array.from({ length: 40 }, (_, i) => `col${i}`)];
    const error = caught(() => checkWhereAttributes(parseWhere('zzz = 1'), many));
    expect(error.message).toContain('col28 and 11 more');
    expect(error.message).toContain('`bad\\x1bname`');
    expect(error.message).not.toContain('\u001b');
  });
});

function caught(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected an error');
}

describe('the examples of docs/audiences.md', () => {
  it('choose what the page says they choose', () => {
    expect(holds('signup >= 2026-11-01 and signup < 2026-12-01', { signup: '2026-11-30T23:59Z' })).toBe(true);
    expect(holds('signup >= 2026-11-01 and signup < 2026-12-01', { signup: '2026-12-01' })).toBe(false);
    const lapsed = 'last_order < "2026-06-01T00:00+02:00" or last_order is empty';
    expect(holds(lapsed, { last_order: '2026-05-31T22:30Z' })).toBe(false);
    expect(holds(lapsed, { last_order: '2026-05-31T21:30Z' })).toBe(true);
    expect(holds(lapsed, {})).toBe(true);
    const outside = 'not (city contains "berlin" or city contains "münchen") and score >= 50';
    expect(holds(outside, { city: 'München', score: '80' })).toBe(false);
    expect(holds(outside, { city: 'Hamburg', score: '50' })).toBe(true);
    expect(holds(outside, { city: 'Hamburg', score: '9' })).toBe(false);
    const named = '`first name` is not empty and plan not in ("trial", "internal") and `opt-in date` > 2026-01-01';
    expect(holds(named, { 'first name': 'Ann', plan: 'pro', 'opt-in date': '2026-03-04' })).toBe(true);
    expect(holds(named, { 'first name': 'Ann', plan: 'trial', 'opt-in date': '2026-03-04' })).toBe(false);
  });
});
