import { describe, expect, it } from 'vitest';
import { VALUE_PROBLEM_TEXT } from '../../src/campaigns/parameter-rules.js';
import { checkSlotValue, encodeUrlSuffix, type SlotContext } from '../../src/campaigns/slot-value.js';
import type { SlotKind } from '../../src/templates/slots/template-slot.js';

/** 1 December 2026, 00:00 UTC; the campaign's rows expire on 1 January 2027. */
const NOW = Date.UTC(2026, 11, 1);
const EXPIRES = Date.UTC(2027, 0, 1);
const context: SlotContext = { now: NOW, campaignExpiresAt: EXPIRES };

function check(kind: SlotKind, value: string, at: SlotContext = context) {
  return checkSlotValue(kind, value, 'col', at);
}

/** The value a slot's rule accepts, normalised; fails the test on a refusal. */
function accepted(kind: SlotKind, value: string, at: SlotContext = context): string {
  const verdict = check(kind, value, at);
  if (!verdict.ok) throw new Error(`expected ${kind} "${value}" to be accepted: ${verdict.reason} ${verdict.detail}`);
  return verdict.value;
}

/** The reason a slot's rule refuses a value; fails the test if it is accepted. */
function refused(kind: SlotKind, value: string, at: SlotContext = context): string {
  const verdict = check(kind, value, at);
  if (verdict.ok) throw new Error(`expected ${kind} "${value}" to be refused, got "${verdict.value}"`);
  return verdict.reason;
}

describe('checkSlotValue: text slots (body and header variables, file names, place names, Flow tokens)', () => {
  const textKinds: SlotKind[] = ['text', 'filename', 'location_name', 'location_address', 'flow_token'];

  it.each(textKinds)('%s: a value is kept as written, trimmed', (kind) => {
    expect(accepted(kind, '  Ana   Lima ')).toBe('Ana   Lima');
    expect(accepted(kind, 'Philz Coffee, 101 Forest Ave')).toBe('Philz Coffee, 101 Forest Ave');
  });

  it.each(
    textKinds.flatMap((kind) => [
      [kind, '', 'VALUE_EMPTY'],
      [kind, '\u200b ', 'VALUE_EMPTY'],
      [kind, 'a\nb', 'VALUE_LINE_BREAK'],
      [kind, 'a\tb', 'VALUE_TAB'],
      [kind, 'a     b', 'VALUE_SPACES'],
      [kind, 'a\u0007b', 'VALUE_CONTROL_CHAR'],
      [kind, 'a\u202eb', 'VALUE_BIDI_CONTROL'],
    ]),
  )('%s %j → %s', (kind, value, reason) => {
    expect(refused(kind, value)).toBe(reason);
  });

  it('the detail names the column and the rule', () => {
    expect(check('text', 'a\tb')).toStrictEqual({ ok: false, reason: 'VALUE_TAB', detail: `column "col" ${VALUE_PROBLEM_TEXT.VALUE_TAB}` });
    expect(check('filename', 'a\nb')).toStrictEqual({
      ok: false,
      reason: 'VALUE_LINE_BREAK',
      detail: `column "col" ${VALUE_PROBLEM_TEXT.VALUE_LINE_BREAK} (U+000A at character 2)`,
    });
  });
});

describe('checkSlotValue: url (the variable end of a URL button)', () => {
  it('is percent-encoded: spaces, non-ASCII, emoji, a stray %', () => {
    expect(accepted('url', 'summer sale/ü')).toBe('summer%20sale/%C3%BC');
    expect(accepted('url', '😀')).toBe('%F0%9F%98%80');
    expect(accepted('url', '50%off')).toBe('50%25off');
    expect(accepted('url', 'a#b"c<d>')).toBe('a%23b%22c%3Cd%3E');
  });

  it('keeps what is URL-safe, and escapes already made', () => {
    expect(accepted('url', 'SPRING25')).toBe('SPRING25');
    expect(accepted('url', 'p/1?ref=wa&x=a-b_c.d~e')).toBe('p/1?ref=wa&x=a-b_c.d~e');
    expect(accepted('url', 'caf%C3%A9%20bar')).toBe('caf%C3%A9%20bar');
  });

  it('encoding twice changes nothing (the worker checks again what the producer encoded)', () => {
    for (const raw of ['summer sale/ü', '50%off', '😀 %zz']) {
      const once = encodeUrlSuffix(raw);
      expect(encodeUrlSuffix(once)).toBe(once);
      expect(accepted('url', once)).toBe(once);
    }
  });

  it.each([
    ['', 'VALUE_EMPTY'],
    ['a\nb', 'VALUE_LINE_BREAK'],
    ['a\tb', 'VALUE_TAB'],
  ])('%j → %s (the text rules first)', (value, reason) => {
    expect(refused('url', value)).toBe(reason);
  });
});

describe('checkSlotValue: media (a header’s or a card’s link)', () => {
  it.each(['https://cdn.example.com/banner.jpg', 'http://cdn.example.com/clip.mp4?v=2'])('%s is accepted as is', (link) => {
    expect(accepted('media', link)).toBe(link);
  });

  it.each(['', 'cdn.example.com/banner.jpg', 'ftp://cdn.example.com/banner.jpg', 'javascript:alert(1)', 'https://'])(
    '%j → HEADER_LINK_INVALID',
    (value) => {
      expect(refused('media', value)).toBe('HEADER_LINK_INVALID');
    },
  );

  it('the detail quotes the value', () => {
    expect(check('media', 'banner.jpg')).toStrictEqual({
      ok: false,
      reason: 'HEADER_LINK_INVALID',
      detail: 'column "col": "banner.jpg" is not an http:// or https:// URL',
    });
  });
});

describe('checkSlotValue: coupon_code', () => {
  it.each(['WINTER25', 'CARIBE25', 'a', 'ABCDEFGHIJKLMNOPQRST', ' 25OFF ', 'WINTER-25', '10%OFF', 'CAFÉ10'])('%j is accepted', (code) => {
    expect(accepted('coupon_code', code)).toBe(code.trim());
  });

  it.each(['', 'ABCDEFGHIJKLMNOPQRSTU', 'WINTER 25', 'WIN\tTER', 'a\u0007b', 'a\u202eb', '\u200b'])('%j → COUPON_CODE_INVALID', (code) => {
    expect(refused('coupon_code', code)).toBe('COUPON_CODE_INVALID');
  });

  it('the detail quotes the value and the rule', () => {
    expect(check('coupon_code', 'WINTER 25')).toStrictEqual({
      ok: false,
      reason: 'COUPON_CODE_INVALID',
      detail: 'column "col": "WINTER 25" is not a coupon code Meta takes: 1 to 20 visible characters, no spaces',
    });
  });

  it('a slot’s own maxLength (15 in a limited-time offer’s template) is the limit: 15 fit, 16 do not', () => {
    expect(checkSlotValue('coupon_code', 'ABCDEFGHIJKLMNO', 'col', context, 15)).toStrictEqual({ ok: true, value: 'ABCDEFGHIJKLMNO' });
    expect(checkSlotValue('coupon_code', 'ABCDEFGHIJKLMNOP', 'col', context, 15)).toStrictEqual({
      ok: false,
      reason: 'COUPON_CODE_INVALID',
      detail: 'column "col": "ABCDEFGHIJKLMNOP" is not a coupon code Meta takes: 1 to 15 visible characters, no spaces',
    });
  });
});

describe('checkSlotValue: text with a maxLength (an authentication code)', () => {
  it('up to maxLength characters is accepted as is', () => {
    expect(checkSlotValue('text', ' 123456 ', 'col', context, 15)).toStrictEqual({ ok: true, value: '123456' });
    expect(checkSlotValue('text', 'x'.repeat(15), 'col', context, 15)).toStrictEqual({ ok: true, value: 'x'.repeat(15) });
  });

  it('one more → OTP_CODE_INVALID, saying how many', () => {
    expect(checkSlotValue('text', 'x'.repeat(16), 'col', context, 15)).toStrictEqual({
      ok: false,
      reason: 'OTP_CODE_INVALID',
      detail: 'column "col": the code has 16 characters; Meta allows 15',
    });
  });

  it('the text rules still apply within the limit', () => {
    expect(checkSlotValue('text', 'a\tb', 'col', context, 15)).toMatchObject({ ok: false, reason: 'VALUE_TAB' });
  });

  it('without a maxLength a text slot has no length rule of its own', () => {
    expect(accepted('text', 'x'.repeat(200))).toBe('x'.repeat(200));
  });
});

describe('checkSlotValue: payload (a quick reply’s)', () => {
  it('a payload follows the text rules only: no length rule of its own', () => {
    expect(accepted('payload', 'more-aloes')).toBe('more-aloes');
    expect(accepted('payload', 'x'.repeat(128))).toBe('x'.repeat(128));
    expect(accepted('payload', 'x'.repeat(129))).toBe('x'.repeat(129));
  });

  it.each([
    ['', 'VALUE_EMPTY'],
    ['a\nb', 'VALUE_LINE_BREAK'],
    ['a\tb', 'VALUE_TAB'],
    ['a     b', 'VALUE_SPACES'],
  ])('%j → %s (the text rules)', (value, reason) => {
    expect(refused('payload', value)).toBe(reason);
  });
});

describe('checkSlotValue: expiration (a limited-time offer’s end)', () => {
  it.each([
    ['an ISO time with offset', '2026-12-24T18:00:00+01:00', Date.UTC(2026, 11, 24, 17)],
    ['an ISO time in UTC', '2026-12-24T18:00:00Z', Date.UTC(2026, 11, 24, 18)],
    ['an ISO time with milliseconds', '2026-12-24T18:00:00.250-05:00', Date.UTC(2026, 11, 24, 23, 0, 0, 250)],
    ['an ISO time with offset without colon', '2026-12-24T18:00:00+0100', Date.UTC(2026, 11, 24, 17)],
    ['epoch milliseconds', String(Date.UTC(2026, 11, 24, 17)), Date.UTC(2026, 11, 24, 17)],
  ])('%s → epoch milliseconds as a string', (_label, value, ms) => {
    expect(accepted('expiration', value)).toBe(String(ms));
  });

  it('the normalised value is accepted again unchanged (the worker checks what the producer normalised)', () => {
    const once = accepted('expiration', '2026-12-24T18:00:00+01:00');
    expect(accepted('expiration', once)).toBe(once);
  });

  it.each([
    ['no offset', '2026-12-24T18:00:00'],
    ['a date without time', '2026-12-24'],
    ['epoch seconds', String(Date.UTC(2026, 11, 24) / 1000)],
    ["Meta's example duration", '1209600000'],
    ['words', 'next Friday'],
    ['an hour that does not exist', '2026-12-24T25:00:00Z'],
    ['a month that does not exist', '2026-13-01T00:00:00Z'],
    ['nothing', ''],
  ])('%s (%j) → OFFER_EXPIRY_INVALID', (_label, value) => {
    expect(refused('expiration', value)).toBe('OFFER_EXPIRY_INVALID');
  });

  // Date.parse alone rolls a day past the month's end over into the next month (30 February as
  // 2 March): a date that does not exist is no time.
  it.each([
    ['30 February', '2027-02-30T18:00:00+01:00'],
    ['29 February of a common year', '2027-02-29T18:00:00Z'],
    ['31 April', '2027-04-31T18:00:00Z'],
  ])('a day that does not exist (%s: %s) → OFFER_EXPIRY_INVALID, not another day', (_label, value) => {
    expect(check('expiration', value, { now: NOW })).toMatchObject({ ok: false, reason: 'OFFER_EXPIRY_INVALID' });
  });

  it('an impossible day is refused with the detail of any other non-time', () => {
    expect(check('expiration', '2027-02-30T18:00:00+01:00', { now: NOW })).toStrictEqual({
      ok: false,
      reason: 'OFFER_EXPIRY_INVALID',
      detail:
        'column "col": "2027-02-30T18:00:00+01:00" is not a time: ' +
        'write an ISO 8601 time with its offset (2026-12-24T18:00:00+01:00) or epoch milliseconds',
    });
  });

  it.each([
    ['a minute that does not exist', '2027-03-01T18:60:00Z'],
    ['a second that does not exist', '2027-03-01T18:00:60Z'],
    ['day 0', '2027-03-00T18:00:00Z'],
  ])('%s (%s) → OFFER_EXPIRY_INVALID', (_label, value) => {
    expect(check('expiration', value, { now: NOW })).toMatchObject({ ok: false, reason: 'OFFER_EXPIRY_INVALID' });
  });

  it('29 February of a leap year and the last day of a month are real days', () => {
    expect(accepted('expiration', '2028-02-29T18:00:00Z', { now: NOW })).toBe(String(Date.UTC(2028, 1, 29, 18)));
    expect(accepted('expiration', '2027-04-30T18:00:00Z', { now: NOW })).toBe(String(Date.UTC(2027, 3, 30, 18)));
  });

  it('an end at or before now → OFFER_EXPIRY_PAST, saying when', () => {
    expect(check('expiration', '2026-11-30T00:00:00Z')).toStrictEqual({
      ok: false,
      reason: 'OFFER_EXPIRY_PAST',
      detail: 'column "col": the offer ended at 2026-11-30T00:00:00.000Z, before now; give a later end',
    });
    expect(refused('expiration', String(NOW))).toBe('OFFER_EXPIRY_PAST');
    expect(accepted('expiration', String(NOW + 1))).toBe(String(NOW + 1));
  });

  it('an end after the campaign’s rows expire → OFFER_EXPIRY_AFTER_CAMPAIGN; at that instant is fine', () => {
    expect(check('expiration', '2027-01-02T00:00:00Z')).toStrictEqual({
      ok: false,
      reason: 'OFFER_EXPIRY_AFTER_CAMPAIGN',
      detail:
        'column "col": the offer ends at 2027-01-02T00:00:00.000Z, after the campaign\'s rows expire (2027-01-01T00:00:00.000Z); ' +
        'end the offer by then, or let the rows expire later',
    });
    expect(accepted('expiration', String(EXPIRES))).toBe(String(EXPIRES));
  });

  it('a campaign without an expiry takes any future end', () => {
    expect(accepted('expiration', '2030-01-01T00:00:00Z', { now: NOW })).toBe(String(Date.UTC(2030, 0, 1)));
  });
});

describe('checkSlotValue: location (latitude,longitude)', () => {
  it.each([
    ['52.5200, 13.4050', '52.5200,13.4050'],
    [' 52.52 , 13.405 ', '52.52,13.405'],
    ['37.44211676562361,-122.16155960083124', '37.44211676562361,-122.16155960083124'],
    ['-90,180', '-90,180'],
    ['90,-180', '90,-180'],
    ['+52.5,-0.0', '52.5,-0.0'],
    ['+52.5,+13.4', '52.5,13.4'],
    ['0,0', '0,0'],
  ])('%j → %j', (value, normalised) => {
    expect(accepted('location', value)).toBe(normalised);
  });

  it.each([
    ['only a latitude', '52.52'],
    ['three numbers', '52.52,13.405,10'],
    ['latitude over 90', '90.1,0'],
    ['longitude under -180', '0,-180.5'],
    ['an exponent', '1e1,2'],
    ['a trailing dot', '52.,13'],
    ['degrees and minutes', "52°31'N,13°24'E"],
    ['a semicolon', '52.52;13.405'],
    ['nothing', ''],
  ])('%s (%j) → LOCATION_INVALID', (_label, value) => {
    expect(refused('location', value)).toBe('LOCATION_INVALID');
  });

  it.each(['52.5200, 13.4050', '-33.8688,151.2093', '0.5,-0.25'])('the normalised place %j is accepted again unchanged', (value) => {
    const once = accepted('location', value);

    expect(accepted('location', once)).toBe(once);
  });

  // The degrees are kept as written: `${Number(x)}` once wrote a coordinate under 1e-6 in exponent
  // notation ("0.0000001" → "1e-7"), which the worker's second check refused.
  it.each([
    ['0.0000001, 0', '0.0000001,0'],
    ['52.5200001, 0.000000123', '52.5200001,0.000000123'],
  ])('a coordinate near 0 (%j) is written in decimals, and accepted again', (value, normalised) => {
    expect(accepted('location', value)).toBe(normalised);
    expect(check('location', normalised)).toStrictEqual({ ok: true, value: normalised });
  });

  it('the detail quotes the value and gives an example', () => {
    expect(check('location', '52.52')).toStrictEqual({
      ok: false,
      reason: 'LOCATION_INVALID',
      detail: 'column "col": "52.52" is not latitude,longitude in degrees (latitude -90 to 90, longitude -180 to 180), e.g. 52.52,13.405',
    });
  });
});

describe('checkSlotValue: product, catalog_id and thumbnail (catalog IDs)', () => {
  const idKinds: SlotKind[] = ['product', 'catalog_id', 'thumbnail'];

  it.each(idKinds)('%s: an ID is accepted as is, trimmed; 100 characters fit', (kind) => {
    expect(accepted(kind, 'vrpj01fvwp')).toBe('vrpj01fvwp');
    expect(accepted(kind, ' 194836987003835 ')).toBe('194836987003835');
    expect(accepted(kind, 'sku-1_A.b')).toBe('sku-1_A.b');
    expect(accepted(kind, 'x'.repeat(100))).toBe('x'.repeat(100));
  });

  it.each(idKinds.flatMap((kind) => ['', 'sku 1', 'x'.repeat(101), 'a\u0001b', 'a\tb'].map((value) => [kind, value])))(
    '%s %j → PRODUCT_ID_INVALID',
    (kind, value) => {
      expect(refused(kind as SlotKind, value)).toBe('PRODUCT_ID_INVALID');
    },
  );
});

describe('checkSlotValue: sections (a multi-product message’s products)', () => {
  it('"Title: id, id; Title: id" is accepted as written', () => {
    const cell = 'Popular Bundles: 2lc20305pt, nseiw1x3ch; Premium Packages: n6k6x0y7oe';

    expect(accepted('sections', cell)).toBe(cell);
  });

  it('10 sections and 30 products in all fit', () => {
    const cell = Array.from({ length: 10 }, (_, s) => `S${s}: ${[0, 1, 2].map((p) => `p${s}-${p}`).join(', ')}`).join('; ');

    expect(accepted('sections', cell)).toBe(cell);
  });

  it.each([
    ['nothing', ''],
    ['no title', 'sku-1, sku-2'],
    ['an empty title', ': sku-1'],
    ['a section without products', 'Shoes: ; Hats: h1'],
    ['a title over 24 characters', `${'T'.repeat(25)}: sku-1`],
    ['11 sections', Array.from({ length: 11 }, (_, s) => `S${s}: p${s}`).join('; ')],
    ['31 products', `All: ${Array.from({ length: 31 }, (_, p) => `p${p}`).join(', ')}`],
    [
      '31 products across sections',
      `A: ${Array.from({ length: 16 }, (_, p) => `a${p}`).join(',')}; B: ${Array.from({ length: 15 }, (_, p) => `b${p}`).join(',')}`,
    ],
    ['an ID with a space', 'Shoes: sku 1'],
  ])('%s → PRODUCT_SECTIONS_INVALID', (_label, value) => {
    expect(refused('sections', value)).toBe('PRODUCT_SECTIONS_INVALID');
  });

  it('the detail says what is wrong', () => {
    expect(check('sections', 'Shoes: ; Hats: h1')).toStrictEqual({
      ok: false,
      reason: 'PRODUCT_SECTIONS_INVALID',
      detail: 'column "col": section "Shoes" lists no product',
    });
  });
});

describe('checkSlotValue: flow_action_data (a Flow’s first-screen data)', () => {
  it('a JSON object is accepted, written compactly', () => {
    expect(accepted('flow_action_data', '{ "offer" : "A", "items": [1, 2] }')).toBe('{"offer":"A","items":[1,2]}');
    expect(accepted('flow_action_data', '{}')).toBe('{}');
  });

  it.each([
    ['an array', '[1, 2]'],
    ['null', 'null'],
    ['a string', '"offer"'],
    ['a number', '42'],
    ['broken JSON', '{"offer": '],
    ['nothing', ''],
    ['over 4,000 characters', JSON.stringify({ a: 'x'.repeat(4000) })],
  ])('%s → FLOW_DATA_INVALID', (_label, value) => {
    expect(refused('flow_action_data', value)).toBe('FLOW_DATA_INVALID');
  });
});
