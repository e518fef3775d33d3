import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planSend, sendPlanSchema, type ColumnOptions, type SendPlan } from '../../src/campaigns/send-plan.js';
import { AppError } from '../../src/errors/app-error.js';
import { requirementsOf, type TemplateRequirements } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema, templateListSchema } from '../../src/templates/template-schema.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

function listed(path: string): TemplateRequirements[] {
  return templateListSchema.parse(JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'))).data.map(requirementsOf);
}

const templates = [...listed('../fixtures/reference/examples/templates-list.response.json'), ...listed('../../samples/templates.json')];

function stored(name: string, language: string): TemplateRequirements {
  const found = templates.find((t) => t.name === name && t.language === language);
  if (found === undefined) throw new Error(`no template ${name} (${language}) in the fixtures`);
  return found;
}

/** A template in Meta's shape, APPROVED and POSITIONAL unless told otherwise. */
function template(fields: {
  components: unknown[];
  name?: string;
  status?: string;
  parameter_format?: 'POSITIONAL' | 'NAMED';
}): TemplateRequirements {
  return requirementsOf(messageTemplateSchema.parse({ name: 't', language: 'en', status: 'APPROVED', ...fields }));
}

/** The error planSend throws; fails the test if it returns a plan instead. */
function refusal(requirements: TemplateRequirements, header: readonly string[], options: ColumnOptions): AppError {
  let plan: SendPlan;
  try {
    plan = planSend(requirements, header, options, CLI_FIELD_NAMES);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected planSend to refuse, got a plan: ${JSON.stringify(plan)}`);
}

/** The "  - …" lines of a refusal: one per problem. */
function problemLines(error: AppError): string[] {
  return error.message.split('\n').filter((line) => line.startsWith('  - '));
}

const orderUpdate = stored('order_update', 'en_US'); // body "Hi {{1}}, your order {{2}} has shipped."
const appointment = stored('appointment_reminder_named', 'en_US'); // NAMED body {{first_name}} {{appointment_time}}
const springSale = stored('spring_sale_v2', 'en_GB'); // TEXT header "Hello {{1}}", body {{1}} {{2}} {{3}}, URL button 0 {{1}}
const springPromo = stored('spring_promo', 'en_US'); // IMAGE header, body {{1}} {{2}}

describe('planSend: positional body', () => {
  it('maps --params to {{1}}..{{n}} in order, with the template texts', () => {
    const plan = planSend(orderUpdate, ['phone', 'name', 'order'], { params: ['name', 'order'] }, CLI_FIELD_NAMES);

    expect(plan).toStrictEqual({
      name: 'order_update',
      language: 'en_US',
      parameterFormat: 'POSITIONAL',
      slots: [
        { component: 'body', variable: '1', column: 'name' },
        { component: 'body', variable: '2', column: 'order' },
      ],
      bodyText: 'Hi {{1}}, your order {{2}} has shipped.',
    });
  });

  it('the order of --params decides the variable, not the order of the columns in the file', () => {
    const plan = planSend(orderUpdate, ['phone', 'name', 'order'], { params: ['order', 'name'] }, CLI_FIELD_NAMES);

    expect(plan.slots.map((s) => [s.variable, s.column])).toStrictEqual([
      ['1', 'order'],
      ['2', 'name'],
    ]);
  });

  it('{{1}} is the first param even when {{2}} comes first in the text', () => {
    const reversed = template({ components: [{ type: 'BODY', text: 'Order {{2}} is ready, {{1}}.' }] });

    expect(planSend(reversed, ['phone', 'a', 'b'], { params: ['a', 'b'] }, CLI_FIELD_NAMES).slots).toStrictEqual([
      { component: 'body', variable: '1', column: 'a' },
      { component: 'body', variable: '2', column: 'b' },
    ]);
  });

  it('a template without variables needs no params and has no slots', () => {
    const plain = template({ components: [{ type: 'BODY', text: 'Our shop is open on Sunday.' }] });

    expect(planSend(plain, ['phone'], {}, CLI_FIELD_NAMES).slots).toStrictEqual([]);
    expect(planSend(plain, ['phone'], { params: [] }, CLI_FIELD_NAMES).slots).toStrictEqual([]);
  });

  it.each([
    ['too few', ['name'], 1],
    ['too many', ['name', 'order', 'name'], 3],
  ])('%s params → TEMPLATE_MAPPING_INVALID saying how many the body takes', (_label, params, given) => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order'], { params });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(error.message).toContain(`its body takes 2 variable(s) ({{1}} {{2}}) but --params names ${given} column(s)`);
  });

  it('no params for a body with variables → each variable has no column', () => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order'], {});

    expect(problemLines(error)).toStrictEqual([
      '  - body variable {{1}} has no column (add it to --params or --param 1=COLUMN)',
      '  - body variable {{2}} has no column (add it to --params or --param 2=COLUMN)',
    ]);
  });

  it('the plan is what sendPlanSchema stores (round-trips unchanged)', () => {
    const plan = planSend(
      springSale,
      ['phone', 'name', 'code', 'amount', 'until'],
      {
        headerTextColumn: 'name',
        params: ['code', 'amount', 'until'],
        buttonUrlColumns: ['code'],
      },
      CLI_FIELD_NAMES,
    );

    expect(sendPlanSchema.parse(JSON.parse(JSON.stringify(plan)))).toStrictEqual(plan);
  });
});

describe('planSend: NAMED templates', () => {
  it('each variable comes from the column of the same name', () => {
    const plan = planSend(appointment, ['phone', 'appointment_time', 'first_name'], {}, CLI_FIELD_NAMES);

    expect(plan).toMatchObject({ parameterFormat: 'NAMED', name: 'appointment_reminder_named' });
    expect(plan.slots).toStrictEqual([
      { component: 'body', variable: 'first_name', column: 'first_name' },
      { component: 'body', variable: 'appointment_time', column: 'appointment_time' },
    ]);
  });

  it('--param name=column maps a variable to a column named differently', () => {
    const plan = planSend(appointment, ['phone', 'first_name', 'when'], { paramColumns: { appointment_time: 'when' } }, CLI_FIELD_NAMES);

    expect(plan.slots).toStrictEqual([
      { component: 'body', variable: 'first_name', column: 'first_name' },
      { component: 'body', variable: 'appointment_time', column: 'when' },
    ]);
  });

  it('a variable whose column the file lacks → refused naming the variable and the column', () => {
    const error = refusal(appointment, ['phone', 'first_name', 'when'], {});

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      '  - body variable {{appointment_time}} is to come from column "appointment_time", which the file does not have',
    ]);
  });

  it.each([[['first_name', 'appointment_time']], [[]]])('--params %j for a NAMED template → refused', (params) => {
    const error = refusal(appointment, ['phone', 'first_name', 'appointment_time'], { params });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(error.message).toContain('it uses named parameters, matched to columns by name: drop --params');
  });

  // A --param for a variable the template lacks (a typo such as `frist_name`) must be refused,
  // not silently ignored while another column is sent instead.
  it('a --param for a variable the template does not have → refused naming it', () => {
    const error = refusal(appointment, ['phone', 'first_name', 'given_name', 'appointment_time'], {
      paramColumns: { frist_name: 'given_name' },
    });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(error.message).toContain('frist_name');
  });
});

describe('planSend: text header', () => {
  it('a positional header variable comes from --header-text-column; the plan keeps the header text', () => {
    const plan = planSend(
      springSale,
      ['phone', 'name', 'code', 'amount', 'until'],
      {
        headerTextColumn: 'name',
        params: ['code', 'amount', 'until'],
        buttonUrlColumns: ['code'],
      },
      CLI_FIELD_NAMES,
    );

    expect(plan).toStrictEqual({
      name: 'spring_sale_v2',
      language: 'en_GB',
      parameterFormat: 'POSITIONAL',
      slots: [
        { component: 'header', variable: '1', column: 'name' },
        { component: 'body', variable: '1', column: 'code' },
        { component: 'body', variable: '2', column: 'amount' },
        { component: 'body', variable: '3', column: 'until' },
        { component: 'button', variable: '1', buttonIndex: 0, column: 'code' },
      ],
      bodyText: 'Use code {{1}} to save {{2}} until {{3}}.',
      headerText: 'Hello {{1}}',
    });
  });

  it('without --header-text-column the header variable has no column → refused', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'amount', 'until'], {
      params: ['code', 'amount', 'until'],
      buttonUrlColumns: ['code'],
    });

    expect(problemLines(error)).toStrictEqual(['  - header variable {{1}} has no column (use --header-text-column or --param 1=COLUMN)']);
  });

  const namedHeader = template({
    parameter_format: 'NAMED',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hi {{first_name}}' },
      { type: 'BODY', text: 'Your order {{order_id}} is ready.' },
    ],
  });

  it('NAMED: the header variable comes from the column of its name', () => {
    const plan = planSend(namedHeader, ['phone', 'order_id', 'first_name'], {}, CLI_FIELD_NAMES);

    expect(plan.slots).toStrictEqual([
      { component: 'header', variable: 'first_name', column: 'first_name' },
      { component: 'body', variable: 'order_id', column: 'order_id' },
    ]);
    expect(plan.headerText).toBe('Hi {{first_name}}');
  });

  it('NAMED: --header-text-column overrides the name match', () => {
    const plan = planSend(namedHeader, ['phone', 'order_id', 'greeting'], { headerTextColumn: 'greeting' }, CLI_FIELD_NAMES);

    expect(plan.slots[0]).toStrictEqual({ component: 'header', variable: 'first_name', column: 'greeting' });
  });

  it('a text header without a variable: no header slot, the text is still kept', () => {
    const fixed = template({
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Spring sale' },
        { type: 'BODY', text: 'Hi {{1}}' },
      ],
    });
    const plan = planSend(fixed, ['phone', 'name'], { params: ['name'] }, CLI_FIELD_NAMES);

    expect(plan.slots).toStrictEqual([{ component: 'body', variable: '1', column: 'name' }]);
    expect(plan.headerText).toBe('Spring sale');
  });

  it('--header-text-column for a template without a header → refused', () => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order'], { params: ['name', 'order'], headerTextColumn: 'name' });

    expect(problemLines(error)).toStrictEqual(['  - it has no text-header variable, so --header-text-column does not apply']);
  });

  // --header-text-column for a TEXT header without a variable does not apply: refused like any
  // other option that does not fit.
  it('--header-text-column for a text header without a variable → refused', () => {
    const fixed = template({
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Spring sale' },
        { type: 'BODY', text: 'Hi {{1}}' },
      ],
    });
    const error = refusal(fixed, ['phone', 'name'], { params: ['name'], headerTextColumn: 'name' });

    expect(error.message).toContain('--header-text-column does not apply');
  });
});

describe('planSend: URL buttons', () => {
  it('the button variable comes from --button-url-column, with the button’s position in the template', () => {
    const laterButton = template({
      components: [
        { type: 'BODY', text: 'Hi {{1}}' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Stop' },
            { type: 'URL', text: 'Help', url: 'https://shop.example.com/help' },
            { type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}' },
          ],
        },
      ],
    });

    expect(
      planSend(laterButton, ['phone', 'name', 'tracking'], { params: ['name'], buttonUrlColumns: ['tracking'] }, CLI_FIELD_NAMES).slots,
    ).toStrictEqual([
      { component: 'body', variable: '1', column: 'name' },
      { component: 'button', variable: '1', buttonIndex: 2, column: 'tracking' },
    ]);
  });

  it('two URL buttons with a variable: one column each, in button order', () => {
    const twoButtons = template({
      components: [
        { type: 'BODY', text: 'Your order is on its way.' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}' },
            { type: 'QUICK_REPLY', text: 'Stop' },
            { type: 'URL', text: 'Invoice', url: 'https://shop.example.com/i/{{1}}' },
          ],
        },
      ],
    });

    expect(
      planSend(twoButtons, ['phone', 'track', 'invoice'], { buttonUrlColumns: ['track', 'invoice'] }, CLI_FIELD_NAMES).slots,
    ).toStrictEqual([
      { component: 'button', variable: '1', buttonIndex: 0, column: 'track' },
      { component: 'button', variable: '1', buttonIndex: 2, column: 'invoice' },
    ]);
  });

  it('NAMED: the button variable is matched by name', () => {
    const named = template({
      parameter_format: 'NAMED',
      components: [
        { type: 'BODY', text: 'Order {{order_id}} shipped.' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{tracking_code}}' }] },
      ],
    });

    expect(planSend(named, ['phone', 'order_id', 'tracking_code'], {}, CLI_FIELD_NAMES).slots).toStrictEqual([
      { component: 'body', variable: 'order_id', column: 'order_id' },
      { component: 'button', variable: 'tracking_code', buttonIndex: 0, column: 'tracking_code' },
    ]);
  });

  it('no --button-url-column for a URL button with a variable → refused', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'amount', 'until'], {
      headerTextColumn: 'name',
      params: ['code', 'amount', 'until'],
    });

    expect(problemLines(error)).toStrictEqual([
      '  - URL button 0 variable {{1}} has no column (use --button-url-column or --param 1=COLUMN)',
    ]);
  });

  it('more --button-url-column than URL buttons with a variable → refused', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'amount', 'until'], {
      headerTextColumn: 'name',
      params: ['code', 'amount', 'until'],
      buttonUrlColumns: ['code', 'name'],
    });

    expect(problemLines(error)).toStrictEqual(['  - it has 1 URL button(s) with a variable, but --button-url-column names 2']);
  });
});

describe('planSend: media and location headers', () => {
  it('an IMAGE header takes its link from --header-image-column', () => {
    const plan = planSend(
      springPromo,
      ['phone', 'name', 'discount', 'banner'],
      {
        params: ['name', 'discount'],
        headerMediaColumn: 'banner',
      },
      CLI_FIELD_NAMES,
    );

    expect(plan.headerMedia).toStrictEqual({ format: 'image', column: 'banner' });
    expect(plan.slots.map((s) => s.component)).toStrictEqual(['body', 'body']);
    expect(plan).not.toHaveProperty('headerText');
  });

  it.each([
    ['VIDEO', 'video'],
    ['DOCUMENT', 'document'],
    ['GIF', 'video'],
  ] as const)('a %s header → headerMedia format %s', (format, expected) => {
    const media = template({
      components: [
        { type: 'HEADER', format },
        { type: 'BODY', text: 'Hello' },
      ],
    });

    expect(planSend(media, ['phone', 'file'], { headerMediaColumn: 'file' }, CLI_FIELD_NAMES).headerMedia).toStrictEqual({
      format: expected,
      column: 'file',
    });
  });

  it('an IMAGE header without --header-image-column → refused', () => {
    const error = refusal(springPromo, ['phone', 'name', 'discount', 'banner'], { params: ['name', 'discount'] });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toHaveLength(1);
    expect(error.message).toMatch(/its image header needs a link: pass --header-image-column COLUMN/);
  });

  it('--header-image-column that is not a column of the file → refused naming it', () => {
    const error = refusal(springPromo, ['phone', 'name', 'discount'], { params: ['name', 'discount'], headerMediaColumn: 'banner' });

    expect(problemLines(error)).toStrictEqual(['  - --header-image-column "banner" is not a column of the file']);
  });

  it('--header-image-column for a template without a media header → refused', () => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order', 'banner'], { params: ['name', 'order'], headerMediaColumn: 'banner' });

    expect(problemLines(error)).toStrictEqual(['  - it has no media header, so --header-image-column does not apply']);
  });

  it('a LOCATION header → refused', () => {
    const location = template({
      components: [
        { type: 'HEADER', format: 'LOCATION' },
        { type: 'BODY', text: 'Hi {{1}}' },
      ],
    });
    const error = refusal(location, ['phone', 'name'], { params: ['name'] });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual(['  - it has a LOCATION header (its place), which this version cannot fill']);
  });

  it('a carousel, a limited-time offer and a copy-code button → refused, each named: a body-only send of them is malformed', () => {
    const offer = template({
      components: [
        { type: 'LIMITED_TIME_OFFER' },
        { type: 'BODY', text: 'Hi {{1}}' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy code' }] },
        { type: 'CAROUSEL', cards: [{ components: [{ type: 'HEADER' }] }, { components: [{ type: 'HEADER' }] }] },
      ],
    });
    const error = refusal(offer, ['phone', 'name'], { params: ['name'] });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      "  - it has a LIMITED_TIME_OFFER (its offer's expiry), which this version cannot fill",
      '  - it has a copy-code button (its coupon code), which this version cannot fill',
      '  - it has a CAROUSEL (its cards), which this version cannot fill',
    ]);
  });
});

describe('planSend: refusals', () => {
  it.each([
    ['--params', orderUpdate, { params: ['name', 'nope'] }],
    ['--param', appointment, { paramColumns: { appointment_time: 'nope' } }],
    ['--header-text-column', springSale, { headerTextColumn: 'nope', params: ['name', 'name', 'name'], buttonUrlColumns: ['name'] }],
    ['--button-url-column', springSale, { headerTextColumn: 'name', params: ['name', 'name', 'name'], buttonUrlColumns: ['nope'] }],
    ['--header-image-column', springPromo, { params: ['name', 'name'], headerMediaColumn: 'nope' }],
  ] as [string, TemplateRequirements, ColumnOptions][])(
    'a column named by %s that the file lacks → refused naming it',
    (_option, requirements, options) => {
      const error = refusal(requirements, ['phone', 'name', 'first_name'], options);

      expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
      expect(problemLines(error)).toHaveLength(1);
      expect(problemLines(error)[0]).toContain('"nope"');
    },
  );

  it.each([
    ['winter_clearance', 'PAUSED'],
    ['legacy_welcome', 'DISABLED'],
  ])('%s (%s) → refused: only APPROVED templates are sent', (name, status) => {
    const error = refusal(stored(name, 'en_US'), ['phone', 'name'], { params: ['name'] });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([`  - its status is ${status}; only APPROVED templates can be sent`]);
  });

  it('several problems → one error listing every one of them, the columns found, and that nothing was enqueued', () => {
    const broken = template({
      name: 'promo',
      status: 'PAUSED',
      components: [
        { type: 'HEADER', format: 'IMAGE' },
        { type: 'BODY', text: 'Hi {{1}}, {{2}} off.' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Shop', url: 'https://shop.example.com/{{1}}' }] },
      ],
    });
    const error = refusal(broken, ['phone', 'name'], { params: ['name'] });

    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toHaveLength(5);
    expect(error.message.split('\n')[0]).toBe('Template promo (en) cannot be sent from this file:');
    for (const part of [
      'its status is PAUSED',
      'its body takes 2 variable(s)',
      'body variable {{2}} has no column',
      'URL button 0 variable {{1}} has no column',
      'header needs a link',
    ]) {
      expect(problemLines(error).filter((line) => line.includes(part))).toHaveLength(1);
    }
    expect(error.message.endsWith('Columns in the file: "phone", "name". Nothing was enqueued.')).toBe(true);
  });

  it('a single problem also says that nothing was enqueued', () => {
    const error = refusal(orderUpdate, ['phone', 'name'], { params: ['name', 'order'] });

    expect(problemLines(error)).toHaveLength(1);
    expect(error.message).toContain('Nothing was enqueued.');
  });
});
