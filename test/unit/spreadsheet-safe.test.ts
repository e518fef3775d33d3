import { describe, expect, it } from 'vitest';
import { BAD_VALUE_MAX_CHARS, boundedBadValue } from '../../src/campaigns/ingest/bad-value.js';
import { spreadsheetSafe } from '../../src/campaigns/report/spreadsheet-safe.js';

describe('spreadsheetSafe (OWASP CSV injection)', () => {
  it.each([
    ['=HYPERLINK("http://evil.test","click")', `'=HYPERLINK("http://evil.test","click")`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', "'\r=1+1"],
  ])('%j → %j', (cell, safe) => {
    expect(spreadsheetSafe(cell)).toBe(safe);
  });

  it.each([['+4915112345678'], ['-12'], [''], ['Ana Lima'], ['line 3: VALUE_TAB'], ['a=b']])('%j is left as it is', (cell) => {
    expect(spreadsheetSafe(cell)).toBe(cell);
  });
});

describe('boundedBadValue', () => {
  it('keeps short values and cuts long ones to the bound, saying how long they were', () => {
    expect(boundedBadValue('+49 151 abc')).toBe('+49 151 abc');
    const cut = boundedBadValue('9'.repeat(5_000_000));
    expect(cut.length).toBeLessThanOrEqual(BAD_VALUE_MAX_CHARS + 30);
    expect(cut).toMatch(/… \(5,000,000 characters\)$/);
  });

  it('never cuts an emoji in half', () => {
    const cut = boundedBadValue('😀'.repeat(300));
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
