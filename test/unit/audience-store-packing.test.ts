import { describe, expect, it } from 'vitest';
import { namedAttributes, packAttributes, unpackAttributes, unpackValues } from '../../src/audiences/attribute-packing.js';
import { checkAudienceName } from '../../src/audiences/audience-name.js';
import { isAppError } from '../../src/errors/app-error.js';

describe('audience attribute packing', () => {
  it('round-trips values in column order, quotes, commas and non-ASCII included', () => {
    const values = ['Anna', 'Müller, "die Ältere"', '', '=HYPERLINK("x")', '日本'];
    const packed = packAttributes(values);
    expect(unpackValues(packed)).toEqual(values);
    expect(unpackAttributes(packed, ['a', 'b', 'c', 'd', 'e'])).toEqual({
      a: 'Anna',
      b: 'Müller, "die Ältere"',
      c: '',
      d: '=HYPERLINK("x")',
      e: '日本',
    });
  });

  it('a contact packed before a column was added reads it as empty; Lua’s `{}` and junk read as no values', () => {
    expect(unpackAttributes('["gold"]', ['tier', 'member_no'])).toEqual({ tier: 'gold', member_no: '' });
    expect(unpackValues('{}')).toEqual([]);
    expect(unpackValues('not json')).toEqual([]);
    expect(unpackValues(null)).toEqual([]);
    expect(unpackValues('["a",1,null]')).toEqual(['a', '', '']);
    expect(namedAttributes(['x', 'y', 'z'], ['first'])).toEqual({ first: 'x' });
  });

  it('stays small: five typical attributes take well under 100 bytes packed', () => {
    expect(packAttributes(['Bernd', 'ORD-100001', 'Schmidt', 'München', 'silver']).length).toBeLessThan(100);
  });
});

describe('audience names', () => {
  it.each(['weekly-offer', 'clinic_2026', 'a', 'V1.2', '9lives', 'x'.repeat(64)])('%s is a name', (name) => {
    expect(checkAudienceName(name)).toBe(name);
  });

  it.each(['', '-lead', '.hidden', 'has space', 'no:colon', '{tag}', 'a/b', 'x'.repeat(65), 'ümlaut'])(
    '"%s" is AUDIENCE_NAME_INVALID',
    (name) => {
      let thrown: unknown;
      try {
        checkAudienceName(name);
      } catch (error) {
        thrown = error;
      }
      expect(isAppError(thrown, 'AUDIENCE_NAME_INVALID')).toBe(true);
    },
  );
});
