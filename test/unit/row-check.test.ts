import { describe, expect, it } from 'vitest';
import { resolveColumns, type ColumnMapping } from '../../src/campaigns/column-mapping.js';
import { checkRow } from '../../src/campaigns/row-check.js';
import { AppError } from '../../src/errors/app-error.js';

const HEADER = ['name', 'phone', 'order_id', 'banner'];

/** phone at 1, params name (0) and order_id (2), header image at 3. */
const mapping: ColumnMapping = resolveColumns(
  HEADER,
  { phoneColumn: 'phone', paramColumns: ['name', 'order_id'], headerImageColumn: 'banner' },
  'orders.csv',
);

const noImage: ColumnMapping = resolveColumns(HEADER.slice(0, 3), { phoneColumn: 'phone', paramColumns: ['name', 'order_id'] }, 'orders.csv');

function row(name: string, phone: string, orderId: string, banner = 'https://cdn.example.com/banner.jpg'): string[] {
  return [name, phone, orderId, banner];
}

describe('resolveColumns', () => {
  it('finds the index of every named column, in the order the params were given', () => {
    expect(resolveColumns(['order_id', 'phone', 'name'], { phoneColumn: 'phone', paramColumns: ['name', 'order_id'] }, 'f.csv')).toStrictEqual({
      fieldCount: 3,
      phone: 1,
      params: [
        { column: 'name', index: 2 },
        { column: 'order_id', index: 0 },
      ],
      headerImage: undefined,
    });
  });

  it('maps the header image column', () => {
    expect(mapping.headerImage).toStrictEqual({ column: 'banner', index: 3 });
    expect(mapping.fieldCount).toBe(4);
  });

  it('a missing column → CSV_HEADER_INVALID naming it and listing the columns found', () => {
    let error: unknown;
    try {
      resolveColumns(['name', 'phone'], { phoneColumn: 'phone', paramColumns: ['name', 'order_id'] }, 'orders.csv');
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    const message = (error as Error).message;
    expect(message).toContain('orders.csv');
    expect(message).toContain('no column "order_id"');
    expect(message).toContain('Columns found: "name", "phone"');
  });

  it('names every missing column at once (phone, param and header image)', () => {
    let message = '';
    try {
      resolveColumns(['name'], { phoneColumn: 'msisdn', paramColumns: ['name', 'code'], headerImageColumn: 'img' }, 'f.csv');
    } catch (caught) {
      message = (caught as Error).message;
    }

    expect(message).toContain('"msisdn", "code", "img"');
  });

  it('column names are matched exactly (case-sensitive)', () => {
    expect(() => resolveColumns(['Phone'], { phoneColumn: 'phone', paramColumns: [] }, 'f.csv')).toThrow(/no column "phone"/);
  });
});

describe('checkRow: valid rows', () => {
  it.each([
    ['+14155550123', '+14155550123'],
    ['+1 (415) 555-0123', '+14155550123'],
    ['  +5511987654321  ', '+5511987654321'],
    ['+49 151 12345678', '+4915112345678'],
    ['0049 151 12345678', '+4915112345678'],
  ])('%j → E.164 %s', (phone, e164) => {
    const verdict = checkRow(row('Ana', phone, 'A-1'), mapping);

    expect(verdict).toMatchObject({ ok: true, to: e164 });
  });

  it('values are trimmed and in param order; the header link is returned', () => {
    expect(checkRow(row('  Ana Lima ', '+14155550123', '\tA-99812  ', ' https://cdn.example.com/b.jpg '), mapping)).toStrictEqual({
      ok: true,
      to: '+14155550123',
      values: ['Ana Lima', 'A-99812'],
      headerLink: 'https://cdn.example.com/b.jpg',
    });
  });

  it('without a header image column the link is undefined', () => {
    expect(checkRow(['Ana', '+14155550123', 'A-1'], noImage)).toStrictEqual({
      ok: true,
      to: '+14155550123',
      values: ['Ana', 'A-1'],
      headerLink: undefined,
    });
  });

  it('4 consecutive spaces inside a value are allowed', () => {
    expect(checkRow(row('Ana    Lima', '+14155550123', 'A-1'), mapping)).toMatchObject({ ok: true, values: ['Ana    Lima', 'A-1'] });
  });
});

describe('checkRow: rejections', () => {
  it('a row with fewer fields than the header → FIELD_COUNT', () => {
    const verdict = checkRow(['Ana', '+14155550123', 'A-1'], mapping);

    expect(verdict).toMatchObject({ ok: false, reason: 'FIELD_COUNT', phone: '+14155550123' });
    expect(verdict.ok === false && verdict.detail).toContain('expected 4 fields');
  });

  it('a row with more fields than the header → FIELD_COUNT', () => {
    expect(checkRow([...row('Ana', '+14155550123', 'A-1'), 'extra'], mapping)).toMatchObject({ ok: false, reason: 'FIELD_COUNT' });
  });

  it.each(['', '   '])('empty phone %j → PHONE_MISSING', (phone) => {
    expect(checkRow(row('Ana', phone, 'A-1'), mapping)).toMatchObject({ ok: false, reason: 'PHONE_MISSING', phone: '' });
  });

  it.each([
    ['+447700900123', 'not a valid number'],
    ['4155550123', 'no country code'],
    ['+1415555', 'not a valid number'],
    ['call me', 'no country code'],
  ])('invalid phone %j → PHONE_INVALID', (phone, why) => {
    const verdict = checkRow(row('Ana', phone, 'A-1'), mapping);

    expect(verdict).toMatchObject({ ok: false, reason: 'PHONE_INVALID', phone });
    expect(verdict.ok === false && verdict.detail).toContain(why);
  });

  const badValues: [string, string, string][] = [
    ['empty', '', 'VALUE_EMPTY'],
    ['only spaces', '   ', 'VALUE_EMPTY'],
    ['\\n', 'Ana\nLima', 'VALUE_LINE_BREAK'],
    ['\\r\\n', 'Ana\r\nLima', 'VALUE_LINE_BREAK'],
    ['lone \\r', 'Ana\rLima', 'VALUE_LINE_BREAK'],
    ['\\t', 'Ana\tLima', 'VALUE_TAB'],
    ['5 spaces', 'Ana     Lima', 'VALUE_SPACES'],
    ['8 spaces', 'Ana        Lima', 'VALUE_SPACES'],
  ];

  it.each(badValues)('%s in the second param → its reason, detail names the column', (_label, value, reason) => {
    const verdict = checkRow(row('Ana', '+5511987654321', value), mapping);

    expect(verdict).toMatchObject({ ok: false, reason, phone: '+5511987654321' });
    expect(verdict.ok === false && verdict.detail).toMatch(/^column "order_id": /);
  });

  it.each(badValues)('%s in the first param → detail names that column', (_label, value, reason) => {
    const verdict = checkRow(row(value, '+4915112345678', 'A-1'), mapping);

    expect(verdict).toMatchObject({ ok: false, reason });
    expect(verdict.ok === false && verdict.detail).toMatch(/^column "name": /);
  });

  it.each([
    ['http://cdn.example.com/b.jpg'],
    ['ftp://cdn.example.com/b.jpg'],
    ['cdn.example.com/b.jpg'],
    [''],
  ])('header link %j (not https) → HEADER_LINK_INVALID naming the column', (link) => {
    const verdict = checkRow(row('Ana', '+14155550123', 'A-1', link), mapping);

    expect(verdict).toMatchObject({ ok: false, reason: 'HEADER_LINK_INVALID', phone: '+14155550123' });
    expect(verdict.ok === false && verdict.detail).toMatch(/^column "banner": /);
  });
});
