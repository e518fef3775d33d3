import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { messageForRow } from '../../src/campaigns/send/message-for-row.js';
import type { RowToSend } from '../../src/campaigns/send-job.js';
import { planSend, type ColumnOptions, type SendPlan } from '../../src/campaigns/send-plan.js';
import { VALUE_PROBLEM_TEXT, type ValueProblem } from '../../src/campaigns/parameter-rules.js';
import { messageBody, messagePath } from '../../src/cloud-api/message-body.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema, templateListSchema } from '../../src/templates/template-schema.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
}

const referenceList = templateListSchema.parse(readJson('../fixtures/reference/examples/templates-list.response.json')).data;
const samples = templateListSchema.parse(readJson('../../samples/templates.json')).data;

/** The plan of a stored template, as the producer makes it. */
function planOf(name: string, language: string, header: readonly string[], options: ColumnOptions): SendPlan {
  const template = [...referenceList, ...samples].find((t) => t.name === name && t.language === language);
  if (template === undefined) throw new Error(`no template ${name} (${language}) in the fixtures`);
  return planSend(requirementsOf(template), header, options, CLI_FIELD_NAMES);
}

function planOfComponents(
  components: unknown[],
  header: readonly string[],
  options: ColumnOptions,
  parameterFormat: 'POSITIONAL' | 'NAMED' = 'POSITIONAL',
): SendPlan {
  const template = messageTemplateSchema.parse({
    name: 'promo',
    language: 'en',
    status: 'APPROVED',
    parameter_format: parameterFormat,
    components,
  });
  return planSend(requirementsOf(template), header, options, CLI_FIELD_NAMES);
}

function definition(plan: SendPlan): CampaignDefinition {
  return {
    id: 'spring24',
    createdAt: 0,
    phoneNumberId: '200000000000002',
    plan,
    source: { file: 'c.csv', phoneColumn: 'phone', fixWhitespace: false },
  };
}

function job(fields: Partial<RowToSend> = {}): RowToSend {
  return { campaignId: 'spring24', row: 7, to: '+14155550123', values: ['Ana', 'A-1'], ...fields };
}

function built(result: ReturnType<typeof messageForRow>): OutboundMessage {
  if (!result.ok) throw new Error(`expected a message, got: ${result.detail}`);
  return result.message;
}

/** Components of the request body the client would send. */
function components(message: OutboundMessage): unknown[] {
  const body = messageBody(message) as { template?: { components?: unknown[] } };
  return body.template?.components ?? [];
}

// order_update: "Hi {{1}}, your order {{2}} has shipped."
const positional = definition(planOf('order_update', 'en_US', ['phone', 'name', 'order'], { params: ['name', 'order'] }));
// appointment_reminder_named: {{first_name}} … {{appointment_time}}
const named = definition(planOf('appointment_reminder_named', 'en_US', ['phone', 'first_name', 'appointment_time'], {}));
// spring_sale_v2: header "Hello {{1}}", body {{1}} {{2}} {{3}}, URL button 0 "https://shop.example.com/?c={{1}}"
const spring = definition(
  planOf('spring_sale_v2', 'en_GB', ['phone', 'name', 'code', 'amount', 'until', 'coupon'], {
    headerTextColumn: 'name',
    params: ['code', 'amount', 'until'],
    buttonUrlColumns: ['coupon'],
  }),
);
// spring_promo: IMAGE header, body {{1}} {{2}}
const promo = definition(
  planOf('spring_promo', 'en_US', ['phone', 'name', 'discount', 'banner'], { params: ['name', 'discount'], headerMediaColumn: 'banner' }),
);

describe('messageForRow: building the message', () => {
  it('positional: body values in order, without names; callback data campaign/row', () => {
    expect(messageForRow(positional, job())).toStrictEqual({
      ok: true,
      message: {
        kind: 'template',
        to: '+14155550123',
        name: 'order_update',
        language: 'en_US',
        body: [{ text: 'Ana' }, { text: 'A-1' }],
        callbackData: 'spring24/7',
      },
    });
  });

  it('positional: the request body parameters carry no parameter_name, in slot order', () => {
    expect(components(built(messageForRow(positional, job({ values: ['A-1', 'Ana'] }))))).toStrictEqual([
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'A-1' },
          { type: 'text', text: 'Ana' },
        ],
      },
    ]);
  });

  it('NAMED: each body value carries parameter_name from its slot variable', () => {
    const message = built(messageForRow(named, job({ values: ['Ana', '12 June at 10:30'] })));

    expect(message).toMatchObject({
      body: [
        { text: 'Ana', name: 'first_name' },
        { text: '12 June at 10:30', name: 'appointment_time' },
      ],
    });
    expect(components(message)).toStrictEqual([
      {
        type: 'body',
        parameters: [
          { type: 'text', parameter_name: 'first_name', text: 'Ana' },
          { type: 'text', parameter_name: 'appointment_time', text: '12 June at 10:30' },
        ],
      },
    ]);
  });

  it('text header + body + URL button → header, body and button components as in the reference example', () => {
    const message = built(
      messageForRow(spring, job({ to: '+4915112345678', values: ['Ana', 'SPRING25', '£25.00', '31 May', 'SPRING25'] })),
    );

    expect(messageBody(message)).toStrictEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+4915112345678',
      type: 'template',
      biz_opaque_callback_data: 'spring24/7',
      template: {
        name: 'spring_sale_v2',
        language: { code: 'en_GB' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Ana' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'SPRING25' },
              { type: 'text', text: '£25.00' },
              { type: 'text', text: '31 May' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'SPRING25' }] },
        ],
      },
    });

    // The header and URL-button components are exactly those of reference §1.4's positional example.
    const example = readJson('../fixtures/reference/examples/send-template-positional.request.json') as {
      template: { components: Record<string, unknown>[] };
    };
    const ours = components(message);
    expect(ours[0]).toStrictEqual(example.template.components.find((c) => c.type === 'header'));
    expect(ours[2]).toStrictEqual(example.template.components.find((c) => c.type === 'button' && c.sub_type === 'url'));
  });

  it('a URL button later in the template is sent with its own index', () => {
    const plan = planOfComponents(
      [
        { type: 'BODY', text: 'Your order is on its way.' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Stop' },
            { type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}' },
          ],
        },
      ],
      ['phone', 'tracking'],
      { buttonUrlColumns: ['tracking'] },
    );

    expect(components(built(messageForRow(definition(plan), job({ values: ['TRK-9'] }))))).toStrictEqual([
      { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'TRK-9' }] },
    ]);
  });

  it('NAMED: the text header and the URL button carry parameter_name too', () => {
    const plan = planOfComponents(
      [
        { type: 'HEADER', format: 'TEXT', text: 'Hi {{first_name}}' },
        { type: 'BODY', text: 'Order {{order_id}} shipped.' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{tracking_code}}' }] },
      ],
      ['phone', 'first_name', 'order_id', 'tracking_code'],
      {},
      'NAMED',
    );

    expect(components(built(messageForRow(definition(plan), job({ values: ['Ana', 'A-1', 'TRK-9'] }))))).toStrictEqual([
      { type: 'header', parameters: [{ type: 'text', parameter_name: 'first_name', text: 'Ana' }] },
      { type: 'body', parameters: [{ type: 'text', parameter_name: 'order_id', text: 'A-1' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', parameter_name: 'tracking_code', text: 'TRK-9' }] },
    ]);
  });

  it('IMAGE header → {type:"image", image:{link}} from the job’s header link', () => {
    const message = built(messageForRow(promo, job({ values: ['Ana', '25%'], headerLink: 'https://cdn.example.com/banner.jpg' })));

    expect(message).toMatchObject({ header: { type: 'image', link: 'https://cdn.example.com/banner.jpg' } });
    expect(components(message)[0]).toStrictEqual({
      type: 'header',
      parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/banner.jpg' } }],
    });
  });

  it.each(['video', 'document', 'gif'] as const)('a %s header → {type: format, [format]: {link}}', (format) => {
    const plan: SendPlan = { ...(promo.plan as SendPlan), headerMedia: { format, column: 'banner' } };
    const message = built(messageForRow(definition(plan), job({ values: ['Ana', '25%'], headerLink: 'https://cdn.example.com/file' })));

    expect(components(message)[0]).toStrictEqual({
      type: 'header',
      parameters: [{ type: format, [format]: { link: 'https://cdn.example.com/file' } }],
    });
  });

  it('NAMED with an image header builds exactly reference examples/send-template-named.request.json (plus callback data)', () => {
    // order_ready_named is PAUSED in the fixture list; this is its plan from when it was APPROVED.
    const plan: SendPlan = {
      name: 'order_ready_named',
      language: 'pt_BR',
      parameterFormat: 'NAMED',
      slots: [
        { name: 'body.first_name', kind: 'text', component: 'body', variable: 'first_name', column: 'first_name' },
        { name: 'body.order_id', kind: 'text', component: 'body', variable: 'order_id', column: 'order_id' },
      ],
      headerMedia: { format: 'image', column: 'banner' },
      bodyText: 'Olá {{first_name}}, o pedido {{order_id}} está pronto.',
    };
    const message = built(
      messageForRow(
        definition(plan),
        job({ to: '+5511987654321', values: ['João', 'A-99812'], headerLink: 'https://cdn.example.com/banner.jpg' }),
      ),
    );

    const example = readJson('../fixtures/reference/examples/send-template-named.request.json') as Record<string, unknown>;
    expect(messageBody(message)).toStrictEqual({ ...example, biz_opaque_callback_data: 'spring24/7' });
  });

  it('a GIF campaign is posted to /marketing_messages, with a gif header and no callback data', () => {
    const plan = planSend(
      requirementsOf(
        messageTemplateSchema.parse({
          name: 'gif_promo',
          language: 'en',
          status: 'APPROVED',
          components: [
            { type: 'HEADER', format: 'GIF' },
            { type: 'BODY', text: 'Hi {{1}}' },
          ],
        }),
      ),
      ['phone', 'name', 'clip'],
      { params: ['name'], headerMediaColumn: 'clip' },
      CLI_FIELD_NAMES,
      { endpoint: 'marketing-messages' },
    );
    const message = built(
      messageForRow(
        { ...definition(plan), endpoint: 'marketing-messages' },
        job({ values: ['Ana'], headerLink: 'https://cdn.example.com/clip.mp4' }),
      ),
    );

    expect(messagePath(message)).toBe('marketing_messages');
    expect(messageBody(message)).not.toHaveProperty('biz_opaque_callback_data');
    expect(components(message)).toStrictEqual([
      { type: 'header', parameters: [{ type: 'gif', gif: { link: 'https://cdn.example.com/clip.mp4' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
    ]);
  });

  it('callbackData is campaign/row', () => {
    const message = built(messageForRow(positional, job({ campaignId: 'c-42', row: 123 })));

    expect(message.callbackData).toBe('c-42/123');
    expect(messageBody(message).biz_opaque_callback_data).toBe('c-42/123');
  });

  it('no header is sent when the template has none, even if the row has a link', () => {
    const message = built(messageForRow(positional, job({ headerLink: 'https://cdn.example.com/x.jpg' })));

    expect(message).not.toHaveProperty('header');
    expect(message).not.toHaveProperty('urlButtons');
  });

  it('a template without variables and a job without values → no components', () => {
    const plan = planOfComponents([{ type: 'BODY', text: 'We are open on Sunday.' }], ['phone'], {});
    const message = built(messageForRow(definition(plan), job({ values: [] })));

    expect(message).toMatchObject({ body: [] });
    expect(messageBody(message).template).toStrictEqual({ name: 'promo', language: { code: 'en' } });
  });
});

describe('messageForRow: the guard', () => {
  it.each([
    ['fewer values', ['Ana']],
    ['more values', ['Ana', 'A-1', 'extra']],
    ['no values', []],
  ])('%s than the template takes → not ok', (_label, values) => {
    expect(messageForRow(positional, job({ values }))).toStrictEqual({
      ok: false,
      detail: `row has ${values.length} values, template order_update takes 2`,
    });
  });

  it.each([
    ['a line break', 'A\n1', 'VALUE_LINE_BREAK', ' (U+000A at character 2)'],
    ['a \\r', 'A\r1', 'VALUE_LINE_BREAK', ' (U+000D at character 2)'],
    ['a tab', 'A\t1', 'VALUE_TAB', ''],
    ['5 spaces', 'A     1', 'VALUE_SPACES', ''],
    ['nothing', '', 'VALUE_EMPTY', ''],
  ] as [string, string, ValueProblem, string][])(
    'a body value with %s → not ok, naming the slot, its column and the rule',
    (_label, value, problem, where) => {
      expect(messageForRow(positional, job({ values: ['Ana', value] }))).toStrictEqual({
        ok: false,
        detail: `body.2: column "order" ${VALUE_PROBLEM_TEXT[problem]}${where}`,
      });
    },
  );

  it.each([
    ['header', ['An\na', 'SPRING25', '£25.00', '31 May', 'SPRING25'], 'header.1: column "name"', 3],
    ['URL button', ['Ana', 'SPRING25', '£25.00', '31 May', 'SPR\nING25'], 'button.0.url: column "coupon"', 4],
  ] as [string, string[], string, number][])(
    'a %s value with a line break → not ok, naming the slot and its column',
    (_label, values, slot, at) => {
      expect(messageForRow(spring, job({ values }))).toStrictEqual({
        ok: false,
        detail: `${slot} ${VALUE_PROBLEM_TEXT.VALUE_LINE_BREAK} (U+000A at character ${at})`,
      });
    },
  );

  it('a value a slot’s own rule refuses (a coupon code) → not ok, naming the slot, its column and the rule', () => {
    const plan = planOfComponents(
      [
        { type: 'BODY', text: 'Your code is {{1}}' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy offer code' }] },
      ],
      ['phone', 'code'],
      { params: ['code'], paramColumns: { 'button.0.coupon_code': 'code' } },
    );

    expect(messageForRow(definition(plan), job({ values: ['SPRING 25', 'SPRING 25'] }))).toStrictEqual({
      ok: false,
      detail: 'button.0.coupon_code: column "code": "SPRING 25" is not a coupon code Meta takes: 1 to 20 visible characters, no spaces',
    });
    expect(messageForRow(definition(plan), job({ values: ['SPRING-25', 'SPRING-25'] }))).toMatchObject({ ok: true });
    expect(messageForRow(definition(plan), job({ values: ['x', 'C'.repeat(21)] }))).toMatchObject({ ok: false });
  });

  it('a coupon code in a limited-time offer’s template: at most 15 characters (the plan slot’s maxLength)', () => {
    const plan = planOfComponents(
      [
        { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!' } },
        { type: 'BODY', text: 'Hurry!' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy offer code' }] },
      ],
      ['phone', 'code'],
      { paramColumns: { 'button.0.coupon_code': 'code' } },
    );

    expect(messageForRow(definition(plan), job({ values: ['C'.repeat(15)] }))).toMatchObject({ ok: true });
    expect(messageForRow(definition(plan), job({ values: ['C'.repeat(16)] }))).toStrictEqual({
      ok: false,
      detail:
        `button.0.coupon_code: column "code": "${'C'.repeat(16)}" is not a coupon code Meta takes: ` +
        '1 to 15 visible characters, no spaces',
    });
  });

  it('an authentication code over 15 characters → not ok (OTP_CODE_INVALID at the worker), naming body.1', () => {
    const template = messageTemplateSchema.parse({
      name: 'verification_code',
      language: 'en_US',
      status: 'APPROVED',
      category: 'AUTHENTICATION',
      components: [
        { type: 'BODY', text: '*{{1}}* is your verification code.' },
        {
          type: 'BUTTONS',
          buttons: [{ type: 'URL', text: 'Copy code', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}' }],
        },
      ],
    });
    const plan = planSend(requirementsOf(template), ['phone', 'otp'], { params: ['otp'] }, CLI_FIELD_NAMES);

    expect(messageForRow(definition(plan), job({ values: ['1'.repeat(15), '1'.repeat(15)] }))).toMatchObject({ ok: true });
    expect(messageForRow(definition(plan), job({ values: ['1'.repeat(16), '1'.repeat(16)] }))).toStrictEqual({
      ok: false,
      detail: 'body.1: column "otp": the code has 16 characters; Meta allows 15',
    });
  });

  it('a limited-time offer that ended before the send → not ok (OFFER_EXPIRY_PAST at the worker)', () => {
    const plan = planOfComponents(
      [
        { type: 'LIMITED_TIME_OFFER', limited_time_offer: { has_expiration: true } },
        { type: 'BODY', text: 'Hurry!' },
      ],
      ['phone', 'ends'],
      { paramColumns: { 'lto.expiration': 'ends' } },
    );
    const ended = Date.now() - 60_000;

    expect(messageForRow(definition(plan), job({ values: [String(ended)] }))).toStrictEqual({
      ok: false,
      detail: `lto.expiration: column "ends": the offer ended at ${new Date(ended).toISOString()}, before now; give a later end`,
    });
    expect(messageForRow(definition(plan), job({ values: [String(Date.now() + 3_600_000)] }))).toMatchObject({ ok: true });
  });

  it('a value with 4 spaces passes the guard', () => {
    expect(messageForRow(positional, job({ values: ['Ana    Lima', 'A-1'] }))).toMatchObject({ ok: true });
  });

  it('a rendered body over 1,024 characters → not ok; exactly 1,024 is sent', () => {
    const fixed = 'Hi , your order  has shipped.'.length;
    const fits = job({ values: ['Ana', 'x'.repeat(1024 - fixed - 3)] });
    const over = job({ values: ['Ana', 'x'.repeat(1025 - fixed - 3)] });

    expect(messageForRow(positional, fits)).toMatchObject({ ok: true });
    const result = messageForRow(positional, over);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail).toContain('the rendered body is 1025 characters, Meta allows 1024');
  });

  it('a rendered text header over 60 characters → not ok', () => {
    const result = messageForRow(spring, job({ values: ['N'.repeat(55), 'SPRING25', '£25.00', '31 May', 'SPRING25'] }));

    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail).toContain('the rendered header is 61 characters');
  });

  it('a media header without a link in the job → not ok', () => {
    expect(messageForRow(promo, job({ values: ['Ana', '25%'] }))).toStrictEqual({
      ok: false,
      detail: 'template spring_promo needs a header image link',
    });
  });
});
