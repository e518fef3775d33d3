import { describe, expect, it } from 'vitest';
import { delimiterLabel, parseDelimiterOption } from '../../src/csv/csv-records.js';
import { detectDelimiter } from '../../src/csv/delimiter.js';
import { AppError } from '../../src/errors/app-error.js';

describe('parseDelimiterOption', () => {
  it.each([
    [',', ','],
    [';', ';'],
    ['|', '|'],
    ['tab', '\t'],
    ['TAB', '\t'],
    ['\\t', '\t'],
    ['\t', '\t'],
  ])('%j → %j', (value, expected) => {
    expect(parseDelimiterOption(value)).toBe(expected);
  });

  it.each([[':'], [''], [' '], [',,'], ['comma'], ['t']])('%j → OPTION_INVALID naming the choices', (value) => {
    let caught: unknown;
    try {
      parseDelimiterOption(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ code: 'OPTION_INVALID' });
    expect((caught as Error).message).toContain('use one of , ; | or tab');
    expect((caught as Error).message).toContain(JSON.stringify(value));
  });
});

describe('delimiterLabel', () => {
  it('prints a tab as a word and other delimiters in quotes', () => {
    expect(delimiterLabel('\t')).toBe('tab');
    expect(delimiterLabel(';')).toBe('";"');
  });
});

describe('detectDelimiter', () => {
  it.each([
    ['commas', 'phone,name,city\n1;2;3;4;5\n', ','],
    ['semicolons (Excel in many locales)', '\ufeffphone;name;note\r\n', ';'],
    ['tabs', 'phone\tname\tnote\n', '\t'],
    ['pipes', 'phone|name\n', '|'],
    ['most frequent wins', 'phone;name,first;city;zip\n', ';'],
    ['a tie goes to the earlier candidate', 'a;b,c\n', ','],
    ['delimiters inside quotes do not count', '"a;b;c;d";e,f,g\n', ','],
    ['a quoted header name with a line break', '"a\nb;c;d;e";f,g\n', ','],
    ['blank lines and empty rows are passed over', '\r\n  \r\n;;;;\r\nphone|name\r\n', '|'],
    ['only empty rows: their delimiter', ';;;\r\n;;;\r\n', ';'],
    ['one column', 'phone\n+1\n', ','],
    ['empty', '', ','],
  ])('%s', (_label, head, expected) => {
    expect(detectDelimiter(head)).toBe(expected);
  });
});
