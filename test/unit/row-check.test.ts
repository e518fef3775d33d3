import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveColumns } from '../../src/campaigns/ingest/column-mapping.js';
import {
  MAX_BODY_CHARS,
  MAX_CARD_BODY_CHARS,
  MAX_HEADER_CHARS,
  VALUE_PROBLEM_TEXT,
  type ValueProblem,
} from '../../src/campaigns/parameter-rules.js';
import { checkRow, type RowRules } from '../../src/campaigns/ingest/row-check.js';
import { planSend, type SendPlan } from '../../src/campaigns/send-plan.js';
import { AppError } from '../../src/errors/app-error.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema, templateListSchema } from '../../src/templates/template-schema.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

function stored(path: string, name: string) {
  const list = templateListSchema.parse(JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')));
  const found = list.data.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no template ${name} in ${path}`);
  return requirementsOf(found);
}

/**
 * spring_sale_v2: TEXT header "Hello {{1}}", body "Use code {{1}} to save {{2}} until {{3}}.",
 * URL button 0 "https://shop.example.com/?c={{1}}". Slots: header name, body code/amount/until, button coupon.
 */
const HEADER = ['name', 'phone', 'code', 'amount', 'until', 'coupon'];
const springPlan = planSend(
  stored('../fixtures/reference/examples/templates-list.response.json', 'spring_sale_v2'),
  HEADER,
  {
    headerTextColumn: 'name',
    params: ['code', 'amount', 'until'],
    buttonUrlColumns: ['coupon'],
  },
  CLI_FIELD_NAMES,
);

/** spring_promo: IMAGE header from `banner`, body "Hi {{1}}, our spring sale is on: {{2}} off everything until Sunday." */
const PROMO_HEADER = ['phone', 'first', 'discount', 'banner'];
const promoPlan = planSend(
  stored('../../samples/templates.json', 'spring_promo'),
  PROMO_HEADER,
  {
    params: ['first', 'discount'],
    headerMediaColumn: 'banner',
  },
  CLI_FIELD_NAMES,
);

function rulesFor(plan: SendPlan, header: readonly string[], extra: Partial<RowRules> = {}): RowRules {
  return { plan, mapping: resolveColumns(header, plan, 'phone', 'customers.csv', CLI_FIELD_NAMES['csv.phoneColumn']), ...extra };
}

const spring = rulesFor(springPlan, HEADER);
const promo = rulesFor(promoPlan, PROMO_HEADER);

interface SpringRow {
  name: string;
  phone: string;
  code: string;
  amount: string;
  until: string;
  coupon: string;
}

function row(fields: Partial<SpringRow> = {}): string[] {
  const r = { name: 'Ana', phone: '+14155550123', code: 'SPRING25', amount: '£25.00', until: '31 May', coupon: 'SPRING25', ...fields };
  return [r.name, r.phone, r.code, r.amount, r.until, r.coupon];
}

function promoRow(banner: string, phone = '+14155550123'): string[] {
  return [phone, 'Ana', '25%', banner];
}

/** The body's fixed characters: its text without the placeholders. */
const bodyFixedChars = springPlan.bodyText.replace(/\{\{\d+\}\}/g, '').length;

describe('resolveColumns', () => {
  it('finds the phone column and each slot’s field index, in slot order', () => {
    expect(
      resolveColumns(
        ['until', 'coupon', 'phone', 'amount', 'name', 'code'],
        springPlan,
        'phone',
        'f.csv',
        CLI_FIELD_NAMES['csv.phoneColumn'],
      ),
    ).toStrictEqual({
      fieldCount: 6,
      phone: 2,
      slots: [
        { index: 4, column: 'name', slot: springPlan.slots[0] },
        { index: 5, column: 'code', slot: springPlan.slots[1] },
        { index: 3, column: 'amount', slot: springPlan.slots[2] },
        { index: 0, column: 'until', slot: springPlan.slots[3] },
        { index: 1, column: 'coupon', slot: springPlan.slots[4] },
      ],
      headerMedia: undefined,
    });
    expect(springPlan.slots.map((s) => [s.name, s.component])).toStrictEqual([
      ['header.1', 'header'],
      ['body.1', 'body'],
      ['body.2', 'body'],
      ['body.3', 'body'],
      ['button.0.url', 'button'],
    ]);
  });

  it('maps the header media column', () => {
    expect(promo.mapping.headerMedia).toStrictEqual({ index: 3, column: 'banner' });
    expect(promo.mapping.fieldCount).toBe(4);
  });

  it('a file without the phone column → CSV_HEADER_INVALID naming it and the columns found', () => {
    let error: unknown;
    try {
      resolveColumns(HEADER, springPlan, 'msisdn', 'customers.csv', CLI_FIELD_NAMES['csv.phoneColumn']);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CSV_HEADER_INVALID' });
    const message = (error as Error).message;
    expect(message).toContain('customers.csv');
    expect(message).toContain('no phone column "msisdn"');
    expect(message).toContain('Columns found: "name", "phone", "code", "amount", "until", "coupon"');
    expect(message).toContain('nothing was enqueued');
  });

  it('the phone column is matched exactly (case-sensitive)', () => {
    expect(() =>
      resolveColumns(
        ['Phone', 'name'],
        planSend(
          stored('../../samples/templates.json', 'order_update'),
          ['Phone', 'name', 'o'],
          { params: ['name', 'o'] },
          CLI_FIELD_NAMES,
        ),
        'phone',
        'f.csv',
        CLI_FIELD_NAMES['csv.phoneColumn'],
      ),
    ).toThrow(/no phone column "phone"/);
  });
});

describe('checkRow: valid rows', () => {
  it('→ E.164 number and the trimmed values in slot order (header, body, button), no header link', () => {
    expect(
      checkRow(row({ name: '  Ana Lima ', phone: ' +1 (415) 555-0123 ', amount: '\t£25.00 ', coupon: ' SPRING25\n' }), spring),
    ).toStrictEqual({
      ok: true,
      to: '+14155550123',
      country: 'US',
      values: ['Ana Lima', 'SPRING25', '£25.00', '31 May', 'SPRING25'],
      headerLink: undefined,
    });
  });

  it.each([
    ['+14155550123', '+14155550123'],
    ['+1 (415) 555-0123', '+14155550123'],
    ['  +5511987654321  ', '+5511987654321'],
    ['+49 151 12345678', '+4915112345678'],
    ['0049 151 12345678', '+4915112345678'],
  ])('phone %j → %s', (phone, e164) => {
    expect(checkRow(row({ phone }), spring)).toMatchObject({ ok: true, to: e164 });
  });

  it('defaultCountry DE turns a national number into E.164', () => {
    expect(checkRow(row({ phone: '015112345678' }), { ...spring, defaultCountry: 'DE' })).toMatchObject({ ok: true, to: '+4915112345678' });
  });

  it('defaultCountry does not change a number that has its own country code', () => {
    expect(checkRow(row({ phone: '+14155550123' }), { ...spring, defaultCountry: 'DE' })).toMatchObject({ ok: true, to: '+14155550123' });
  });

  it('without defaultCountry the national number is refused', () => {
    const verdict = checkRow(row({ phone: '015112345678' }), spring);

    expect(verdict).toMatchObject({ ok: false, reason: 'PHONE_INVALID', phone: '015112345678' });
    expect(!verdict.ok && verdict.detail).toContain('no country code');
  });

  it('4 consecutive spaces inside a value are allowed and kept', () => {
    expect(checkRow(row({ amount: '£25    off' }), spring)).toMatchObject({
      ok: true,
      values: ['Ana', 'SPRING25', '£25    off', '31 May', 'SPRING25'],
    });
  });

  it('a header media link is returned trimmed', () => {
    expect(checkRow(promoRow(' https://cdn.example.com/b.jpg '), promo)).toStrictEqual({
      ok: true,
      to: '+14155550123',
      country: 'US',
      values: ['Ana', '25%'],
      headerLink: 'https://cdn.example.com/b.jpg',
    });
  });
});

describe('checkRow: phone and field count', () => {
  it('fewer fields than the header → FIELD_COUNT', () => {
    const verdict = checkRow(row().slice(0, 5), spring);

    expect(verdict).toMatchObject({ ok: false, reason: 'FIELD_COUNT', phone: '+14155550123' });
    expect(!verdict.ok && verdict.detail).toContain('expected 6 fields as in the header, found 5');
  });

  it('more fields than the header → FIELD_COUNT', () => {
    expect(checkRow([...row(), 'extra'], spring)).toMatchObject({ ok: false, reason: 'FIELD_COUNT' });
  });

  it.each(['', '   '])('empty phone %j → PHONE_MISSING', (phone) => {
    expect(checkRow(row({ phone }), spring)).toMatchObject({ ok: false, reason: 'PHONE_MISSING', phone: '' });
  });

  it.each([
    ['+447700900123', 'not a valid number'],
    ['4155550123', 'no country code'],
    ['+1415555', 'not a valid number'],
    ['call me', 'is not a phone number'],
    ['+49 abc', 'is not a phone number'],
    ['(415) 555-0123', 'no country code'],
  ])('invalid phone %j → PHONE_INVALID', (phone, why) => {
    const verdict = checkRow(row({ phone }), spring);

    expect(verdict).toMatchObject({ ok: false, reason: 'PHONE_INVALID', phone });
    expect(!verdict.ok && verdict.detail).toContain(why);
  });
});

describe('checkRow: value rules', () => {
  const badValues: [string, string, ValueProblem][] = [
    ['empty', '', 'VALUE_EMPTY'],
    ['only spaces', '   ', 'VALUE_EMPTY'],
    ['\\n', 'Ana\nLima', 'VALUE_LINE_BREAK'],
    ['\\r\\n', 'Ana\r\nLima', 'VALUE_LINE_BREAK'],
    ['lone \\r', 'Ana\rLima', 'VALUE_LINE_BREAK'],
    ['\\t', 'Ana\tLima', 'VALUE_TAB'],
    ['5 spaces', 'Ana     Lima', 'VALUE_SPACES'],
    ['8 spaces', 'Ana        Lima', 'VALUE_SPACES'],
  ];

  it.each(badValues)('%s in a body value → its reason, the detail names the column', (_label, value, reason) => {
    const verdict = checkRow(row({ phone: '+5511987654321', amount: value }), spring);

    expect(verdict).toMatchObject({ ok: false, phone: '+5511987654321', reason });
    // Line breaks also say which character and where (e.g. "(U+000A at character 4)").
    expect(!verdict.ok && verdict.detail.startsWith(`column "amount" ${VALUE_PROBLEM_TEXT[reason]}`)).toBe(true);
  });

  it.each(badValues)('%s in the header value → its reason, the detail names that column', (_label, value, reason) => {
    const verdict = checkRow(row({ phone: '+4915112345678', name: value }), spring);

    expect(verdict).toMatchObject({ ok: false, reason, phone: '+4915112345678' });
    expect(!verdict.ok && verdict.detail).toMatch(/^column "name" /);
  });

  it.each(badValues)('%s in the URL-button value → its reason, the detail names that column', (_label, value, reason) => {
    const verdict = checkRow(row({ coupon: value }), spring);

    expect(verdict).toMatchObject({ ok: false, reason });
    expect(!verdict.ok && verdict.detail).toMatch(/^column "coupon" /);
  });

  it.each([
    ['Ana\nLima', 'Ana Lima'],
    ['Ana\r\nLima', 'Ana Lima'],
    ['Ana\tLima', 'Ana Lima'],
    ['Ana     Lima', 'Ana Lima'],
    ['Ana \r\n\t  Lima', 'Ana Lima'],
  ])('fixWhitespace: %j is collapsed to %j instead of rejected', (value, fixed) => {
    const verdict = checkRow(row({ amount: value }), { ...spring, fixWhitespace: true });

    expect(verdict).toMatchObject({ ok: true, values: ['Ana', 'SPRING25', fixed, '31 May', 'SPRING25'] });
  });

  it('fixWhitespace: false still rejects', () => {
    expect(checkRow(row({ amount: 'Ana\nLima' }), { ...spring, fixWhitespace: false })).toMatchObject({
      ok: false,
      reason: 'VALUE_LINE_BREAK',
    });
  });

  it.each(['', ' \n\t '])('fixWhitespace: an empty value %j is still rejected', (value) => {
    expect(checkRow(row({ until: value }), { ...spring, fixWhitespace: true })).toMatchObject({ ok: false, reason: 'VALUE_EMPTY' });
  });
});

describe('checkRow: URL-button values', () => {
  it.each([
    ['SPRING 25', 'SPRING%2025'],
    ['Müller', 'M%C3%BCller'],
    ['a#b', 'a%23b'],
    ['100%', '100%25'],
    ['50%20off', '50%20off'],
    ['x%2Fy', 'x%2Fy'],
    ['SPRING25-a_b.c~', 'SPRING25-a_b.c~'],
  ])('%j comes back percent-encoded as %j', (coupon, encoded) => {
    const verdict = checkRow(row({ coupon }), spring);

    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.ok && verdict.values[4]).toBe(encoded);
  });

  it('body and header values are not encoded', () => {
    expect(checkRow(row({ name: 'Zoë M', code: 'A B' }), spring)).toMatchObject({
      ok: true,
      values: ['Zoë M', 'A B', '£25.00', '31 May', 'SPRING25'],
    });
  });

  // Characters outside the BMP (emoji) are encoded as whole code points: encoding UTF-16 halves
  // separately would throw and stop the producer mid-file.
  it('an emoji in a URL-button value is percent-encoded as UTF-8 (no exception)', () => {
    let verdict: ReturnType<typeof checkRow> | undefined;
    expect(() => {
      verdict = checkRow(row({ coupon: 'party🎉' }), spring);
    }).not.toThrow();
    expect(verdict).toMatchObject({ ok: true, values: ['Ana', 'SPRING25', '£25.00', '31 May', 'party%F0%9F%8E%89'] });
  });
});

describe('checkRow: rendered lengths', () => {
  /** Body values whose rendered body is exactly `length` characters. */
  function bodyOf(length: number): Partial<SpringRow> {
    return { code: 'C'.repeat(length - bodyFixedChars - '£25.00'.length - '31 May'.length) };
  }

  it('the fixture body has the text the lengths are computed from', () => {
    expect(springPlan.bodyText).toBe('Use code {{1}} to save {{2}} until {{3}}.');
    expect(bodyFixedChars).toBe('Use code  to save  until .'.length);
  });

  it(`a rendered body of exactly ${MAX_BODY_CHARS} characters is fine`, () => {
    expect(checkRow(row(bodyOf(1024)), spring)).toMatchObject({ ok: true });
  });

  it('a rendered body of 1025 characters → BODY_TOO_LONG', () => {
    const verdict = checkRow(row(bodyOf(1025)), spring);

    expect(verdict).toMatchObject({ ok: false, reason: 'BODY_TOO_LONG', phone: '+14155550123' });
    expect(!verdict.ok && verdict.detail).toContain('the rendered body is 1025 characters, Meta allows 1024');
  });

  it('a placeholder used twice counts twice', () => {
    const twice = planSend(
      requirementsOf(
        messageTemplateSchema.parse({ name: 't', language: 'en', status: 'APPROVED', components: [{ type: 'BODY', text: '{{1}}-{{1}}' }] }),
      ),
      ['phone', 'v'],
      { params: ['v'] },
      CLI_FIELD_NAMES,
    );
    const rules = rulesFor(twice, ['phone', 'v']);

    expect(checkRow(['+14155550123', 'x'.repeat(511)], rules)).toMatchObject({ ok: true });
    expect(checkRow(['+14155550123', 'x'.repeat(512)], rules)).toMatchObject({ ok: false, reason: 'BODY_TOO_LONG' });
  });

  it('the URL-button value does not count towards the body', () => {
    expect(checkRow(row({ ...bodyOf(1024), coupon: 'X'.repeat(500) }), spring)).toMatchObject({ ok: true });
  });

  it(`a rendered text header of exactly ${MAX_HEADER_CHARS} characters ("Hello " + 54) is fine`, () => {
    expect(checkRow(row({ name: 'N'.repeat(54) }), spring)).toMatchObject({ ok: true });
  });

  it('a rendered text header of 61 characters → HEADER_TOO_LONG', () => {
    const verdict = checkRow(row({ name: 'N'.repeat(55) }), spring);

    expect(verdict).toMatchObject({ ok: false, reason: 'HEADER_TOO_LONG', phone: '+14155550123' });
    expect(!verdict.ok && verdict.detail).toContain('the rendered header is 61 characters, Meta allows 60');
  });

  it(`a carousel card's rendered body over ${MAX_CARD_BODY_CHARS} characters → BODY_TOO_LONG naming the card`, () => {
    // Two image cards, each body with its own fixed text and one variable: "Only {{1}}" (5 fixed), "Now just {{1}}!" (10 fixed).
    const card = (body: string) => ({
      components: [
        { type: 'HEADER', format: 'IMAGE' },
        { type: 'BODY', text: body },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'More like this' }] },
      ],
    });
    const template = messageTemplateSchema.parse({
      name: 'new_in',
      language: 'en',
      status: 'APPROVED',
      category: 'MARKETING',
      components: [
        { type: 'BODY', text: 'Hi {{1}}, new in:' },
        { type: 'CAROUSEL', cards: [card('Only {{1}}'), card('Now just {{1}}!')] },
      ],
    });
    const header = ['phone', 'name', 'image0', 'price0', 'image1', 'price1'];
    const plan = planSend(
      requirementsOf(template),
      header,
      {
        params: ['name'],
        paramColumns: {
          'card.0.header.image': 'image0',
          'card.0.body.1': 'price0',
          'card.1.header.image': 'image1',
          'card.1.body.1': 'price1',
        },
      },
      CLI_FIELD_NAMES,
    );
    expect(plan.cardBodyTexts).toStrictEqual(['Only {{1}}', 'Now just {{1}}!']);
    const rules = rulesFor(plan, header);
    const carouselRow = (price0: string, price1: string) => [
      '+14155550123',
      'Ana',
      'https://cdn.example.com/0.jpg',
      price0,
      'https://cdn.example.com/1.jpg',
      price1,
    ];
    const fill = (fixed: number, length: number) => 'p'.repeat(length - fixed);

    expect(checkRow(carouselRow(fill(5, 160), fill(10, 160)), rules)).toMatchObject({ ok: true });
    expect(checkRow(carouselRow(fill(5, 160), fill(10, 161)), rules)).toStrictEqual({
      ok: false,
      phone: '+14155550123',
      reason: 'BODY_TOO_LONG',
      detail: "card 1's rendered body is 161 characters, Meta allows 160 on a carousel card; shorten the values",
    });
    expect(checkRow(carouselRow(fill(5, 161), fill(10, 20)), rules)).toMatchObject({
      ok: false,
      reason: 'BODY_TOO_LONG',
      detail: expect.stringContaining("card 0's rendered body is 161 characters") as unknown,
    });
    // A card's limit is its own: the same value fits the message's body (1,024).
    expect(checkRow(['+14155550123', fill(0, 161), ...carouselRow('x', 'y').slice(2)], rules)).toMatchObject({ ok: true });
  });
});

describe('checkRow: header media link', () => {
  it.each([['ftp://cdn.example.com/b.jpg'], ['cdn.example.com/b.jpg'], ['https://'], ['http://'], ['']])(
    'header link %j (not http or https) → HEADER_LINK_INVALID naming the column',
    (link) => {
      const verdict = checkRow(promoRow(link), promo);

      expect(verdict).toMatchObject({ ok: false, reason: 'HEADER_LINK_INVALID', phone: '+14155550123' });
      expect(!verdict.ok && verdict.detail).toMatch(/^column "banner": /);
    },
  );

  it('an http:// header link is sent as written: Meta fetches http and https media links', () => {
    expect(checkRow(promoRow('http://cdn.example.com/b.jpg'), promo)).toMatchObject({
      ok: true,
      headerLink: 'http://cdn.example.com/b.jpg',
    });
  });
});

describe('checkRow: hostile cells', () => {
  it('a value with an escape sequence, a bidi override or only invisible characters is refused with its reason', () => {
    const check = checkRow;
    const rules = spring;
    expect(check(row({ phone: '+5511987654321', amount: '12\u001b[2J' }), rules)).toMatchObject({
      ok: false,
      reason: 'VALUE_CONTROL_CHAR',
    });
    expect(check(row({ phone: '+5511987654321', amount: '12\u202e34' }), rules)).toMatchObject({ ok: false, reason: 'VALUE_BIDI_CONTROL' });
    expect(check(row({ phone: '+5511987654321', amount: '\u200b\u3164' }), rules)).toMatchObject({ ok: false, reason: 'VALUE_EMPTY' });
  });

  it('Unicode spaces around values and the phone are trimmed like ASCII ones', () => {
    const verdict = checkRow(row({ phone: '\u00a0+5511987654321\u3000', amount: '\u2003R$ 10\u00a0' }), spring);
    expect(verdict).toMatchObject({ ok: true, to: '+5511987654321' });
    expect(verdict.ok && verdict.values).toContain('R$ 10');
  });

  it('a huge phone cell is refused by its length and kept at most 200 characters', () => {
    const verdict = checkRow(row({ phone: '9'.repeat(4000), amount: '10' }), spring);
    expect(verdict).toMatchObject({ ok: false, reason: 'PHONE_INVALID' });
    expect(!verdict.ok && verdict.phone.length).toBeLessThanOrEqual(230);
    expect(!verdict.ok && verdict.detail.length).toBeLessThan(200);
  });
});

describe('checkRow: a slot’s own length (the plan slot’s maxLength)', () => {
  function planOfTemplate(fields: { category?: string; components: unknown[] }, header: readonly string[], options: object): SendPlan {
    const template = messageTemplateSchema.parse({ name: 't', language: 'en', status: 'APPROVED', category: 'MARKETING', ...fields });
    return planSend(requirementsOf(template), header, options, CLI_FIELD_NAMES);
  }

  it('an authentication code over 15 characters → OTP_CODE_INVALID; 15 fit', () => {
    const header = ['phone', 'otp'];
    const plan = planOfTemplate(
      {
        category: 'AUTHENTICATION',
        components: [
          { type: 'BODY', text: '*{{1}}* is your verification code.' },
          {
            type: 'BUTTONS',
            buttons: [{ type: 'URL', text: 'Copy code', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}' }],
          },
        ],
      },
      header,
      { params: ['otp'] },
    );
    const rules = rulesFor(plan, header);

    expect(checkRow(['+14155550123', '1'.repeat(15)], rules)).toMatchObject({ ok: true, values: ['1'.repeat(15), '1'.repeat(15)] });
    expect(checkRow(['+14155550123', '1'.repeat(16)], rules)).toStrictEqual({
      ok: false,
      phone: '+14155550123',
      reason: 'OTP_CODE_INVALID',
      detail: 'column "otp": the code has 16 characters; Meta allows 15',
    });
  });

  it('a coupon code in a limited-time offer’s template over 15 characters → COUPON_CODE_INVALID; in a coupon template 20 fit', () => {
    const header = ['phone', 'code'];
    const buttons = { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy offer code' }] };
    const offer = rulesFor(
      planOfTemplate(
        { components: [{ type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!' } }, { type: 'BODY', text: 'Hurry!' }, buttons] },
        header,
        { paramColumns: { 'button.0.coupon_code': 'code' } },
      ),
      header,
    );
    const coupon = rulesFor(
      planOfTemplate({ components: [{ type: 'BODY', text: 'Hurry!' }, buttons] }, header, {
        paramColumns: { 'button.0.coupon_code': 'code' },
      }),
      header,
    );

    expect(checkRow(['+14155550123', 'WINTER-25%OFF_ÉTÉ'.slice(0, 15)], offer)).toMatchObject({ ok: true });
    expect(checkRow(['+14155550123', 'C'.repeat(16)], offer)).toMatchObject({ ok: false, reason: 'COUPON_CODE_INVALID' });
    expect(checkRow(['+14155550123', 'C'.repeat(20)], coupon)).toMatchObject({ ok: true, values: ['C'.repeat(20)] });
    expect(checkRow(['+14155550123', 'C'.repeat(21)], coupon)).toMatchObject({ ok: false, reason: 'COUPON_CODE_INVALID' });
  });
});
