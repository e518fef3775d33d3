import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planSend, sendPlanSchema, type ColumnOptions, type PlanContext, type SendPlan } from '../../src/campaigns/send-plan.js';
import { AppError } from '../../src/errors/app-error.js';
import { ProblemsError } from '../../src/errors/problems-error.js';
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
function refusal(requirements: TemplateRequirements, header: readonly string[], options: ColumnOptions, context?: PlanContext): AppError {
  let plan: SendPlan;
  try {
    plan = planSend(requirements, header, options, CLI_FIELD_NAMES, context);
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

/** The items of a refusal (what the API returns): code, and the column when one the file lacks. */
function problemItems(error: AppError): { code: string; column?: string | undefined }[] {
  if (!(error instanceof ProblemsError)) throw new Error(`expected a ProblemsError, got ${error.name}: ${error.message}`);
  return error.problems.map((p) => ({ code: p.code, ...(p.column === undefined ? {} : { column: p.column }) }));
}

/** The "  - …" line of a required slot no column fills: its shorthand flag first, when it has one. */
function unfilledLine(slot: string, about: string, shorthand?: string): string {
  const how = `${shorthand === undefined ? '' : `${shorthand}, or `}map it with --param ${slot}=COLUMN`;
  return `  - ${slot} (${about}) is required and no column fills it: ${how}`;
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
        { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
        { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'order' },
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
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'a' },
      { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'b' },
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

  it('no params for a body with variables → each variable is an unfilled slot (TEMPLATE_SLOT_UNFILLED)', () => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order'], {});

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([
      '  - body.1 (body variable {{1}}) is required and no column fills it: ' +
        'add its column to --params, or map it with --param body.1=COLUMN',
      '  - body.2 (body variable {{2}}) is required and no column fills it: ' +
        'add its column to --params, or map it with --param body.2=COLUMN',
    ]);
    expect(problemItems(error)).toStrictEqual([{ code: 'TEMPLATE_SLOT_UNFILLED' }, { code: 'TEMPLATE_SLOT_UNFILLED' }]);
  });

  it.each([
    ['the slot name', { 'body.1': 'name', 'body.2': 'order' }],
    ['the bare variable name', { '1': 'name', '2': 'order' }],
  ])('--param with %s fills a positional body variable, like --params', (_label, paramColumns) => {
    const plan = planSend(orderUpdate, ['phone', 'name', 'order'], { paramColumns }, CLI_FIELD_NAMES);

    expect(plan).toStrictEqual(planSend(orderUpdate, ['phone', 'name', 'order'], { params: ['name', 'order'] }, CLI_FIELD_NAMES));
  });

  it('a bare number fills only the body’s variable of a positional template (header and buttons have their own flags)', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'saving', 'until'], {
      paramColumns: { '1': 'code', '2': 'saving', '3': 'until' },
    });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([
      unfilledLine('header.1', 'header variable {{1}}', 'give --header-text-column'),
      unfilledLine('button.0.url', "the end of button 0's link", 'give --button-url-column'),
    ]);
  });

  it('a column named as the slot fills it without any option', () => {
    const plan = planSend(orderUpdate, ['phone', 'body.2', 'body.1'], {}, CLI_FIELD_NAMES);

    expect(plan.slots.map((s) => [s.name, s.column])).toStrictEqual([
      ['body.1', 'body.1'],
      ['body.2', 'body.2'],
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
      { name: 'body.first_name', kind: 'text', component: 'body', variable: 'first_name', column: 'first_name' },
      { name: 'body.appointment_time', kind: 'text', component: 'body', variable: 'appointment_time', column: 'appointment_time' },
    ]);
  });

  it('--param name=column maps a variable to a column named differently', () => {
    const plan = planSend(appointment, ['phone', 'first_name', 'when'], { paramColumns: { appointment_time: 'when' } }, CLI_FIELD_NAMES);

    expect(plan.slots).toStrictEqual([
      { name: 'body.first_name', kind: 'text', component: 'body', variable: 'first_name', column: 'first_name' },
      { name: 'body.appointment_time', kind: 'text', component: 'body', variable: 'appointment_time', column: 'when' },
    ]);
  });

  it('a variable no column of the file is named after → TEMPLATE_MAPPING_INVALID naming the variable and its column', () => {
    const error = refusal(appointment, ['phone', 'first_name', 'when'], {});

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      '  - body.appointment_time (body variable {{appointment_time}}) is to come from column "appointment_time", ' +
        'which the file does not have',
    ]);
    expect(problemItems(error)).toStrictEqual([{ code: 'TEMPLATE_MAPPING_INVALID', column: 'appointment_time' }]);
  });

  it('a variable mapped to a column the file lacks → TEMPLATE_MAPPING_INVALID naming the variable and the column', () => {
    const error = refusal(appointment, ['phone', 'first_name', 'when'], { paramColumns: { appointment_time: 'time' } });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      '  - body.appointment_time (body variable {{appointment_time}}) is to come from column "time", which the file does not have',
    ]);
    expect(problemItems(error)).toStrictEqual([{ code: 'TEMPLATE_MAPPING_INVALID', column: 'time' }]);
  });

  it.each([[['first_name', 'appointment_time']], [[]]])('--params %j for a NAMED template → refused', (params) => {
    const error = refusal(appointment, ['phone', 'first_name', 'appointment_time'], { params });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(error.message).toContain('it uses named parameters, matched to columns by name: drop --params');
  });

  // A bare `--param first_name=given` fills the variable wherever the message has it, never one
  // slot from `given` and another of the same name from a column "first_name".
  describe('a bare --param NAME=COLUMN fills every slot of that variable: header, body and URL button', () => {
    const shared = template({
      parameter_format: 'NAMED',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Hi {{first_name}}' },
        { type: 'BODY', text: 'Dear {{first_name}}, order {{order_id}} has shipped.' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{order_id}}' }] },
      ],
    });
    const expected = [
      ['header.first_name', 'given'],
      ['body.first_name', 'given'],
      ['body.order_id', 'oid'],
      ['button.0.url', 'oid'],
    ];

    it.each([
      ['without same-named columns', ['phone', 'given', 'oid']],
      ['beside same-named columns', ['phone', 'given', 'oid', 'first_name', 'order_id']],
    ])('%s', (_label, header) => {
      const plan = planSend(shared, header, { paramColumns: { first_name: 'given', order_id: 'oid' } }, CLI_FIELD_NAMES);

      expect(plan.slots.map((s) => [s.name, s.column])).toStrictEqual(expected);
    });

    it('one variable in the header, the body and a URL button at once: all three from the one column', () => {
      const everywhere = template({
        parameter_format: 'NAMED',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Code {{code}}' },
          { type: 'BODY', text: 'Use {{code}} at checkout.' },
          { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Shop', url: 'https://shop.example.com/c/{{code}}' }] },
        ],
      });
      const plan = planSend(everywhere, ['phone', 'promo', 'code'], { paramColumns: { code: 'promo' } }, CLI_FIELD_NAMES);

      expect(plan.slots.map((s) => [s.name, s.column])).toStrictEqual([
        ['header.code', 'promo'],
        ['body.code', 'promo'],
        ['button.0.url', 'promo'],
      ]);
    });

    it('a slot named in full still wins over the bare name for that slot alone', () => {
      const plan = planSend(
        shared,
        ['phone', 'given', 'nick', 'oid'],
        { paramColumns: { first_name: 'given', 'header.first_name': 'nick', order_id: 'oid' } },
        CLI_FIELD_NAMES,
      );

      expect(plan.slots.map((s) => [s.name, s.column])).toStrictEqual([
        ['header.first_name', 'nick'],
        ['body.first_name', 'given'],
        ['body.order_id', 'oid'],
        ['button.0.url', 'oid'],
      ]);
    });
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
        { name: 'header.1', kind: 'text', component: 'header', variable: '1', column: 'name' },
        { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'code' },
        { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'amount' },
        { name: 'body.3', kind: 'text', component: 'body', variable: '3', column: 'until' },
        { name: 'button.0.url', kind: 'url', subType: 'url', component: 'button', variable: '1', buttonIndex: 0, column: 'code' },
      ],
      bodyText: 'Use code {{1}} to save {{2}} until {{3}}.',
      headerText: 'Hello {{1}}',
    });
  });

  it('without --header-text-column the header variable has no column → TEMPLATE_SLOT_UNFILLED naming header.1', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'amount', 'until'], {
      params: ['code', 'amount', 'until'],
      buttonUrlColumns: ['code'],
    });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([unfilledLine('header.1', 'header variable {{1}}', 'give --header-text-column')]);
  });

  it('--param header.1=COLUMN fills the positional header variable like --header-text-column', () => {
    const options = { params: ['code', 'amount', 'until'], buttonUrlColumns: ['code'] };
    const header = ['phone', 'name', 'code', 'amount', 'until'];
    const plan = planSend(springSale, header, { ...options, paramColumns: { 'header.1': 'name' } }, CLI_FIELD_NAMES);

    expect(plan).toStrictEqual(planSend(springSale, header, { ...options, headerTextColumn: 'name' }, CLI_FIELD_NAMES));
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
      { name: 'header.first_name', kind: 'text', component: 'header', variable: 'first_name', column: 'first_name' },
      { name: 'body.order_id', kind: 'text', component: 'body', variable: 'order_id', column: 'order_id' },
    ]);
    expect(plan.headerText).toBe('Hi {{first_name}}');
  });

  it('NAMED: --header-text-column overrides the name match', () => {
    const plan = planSend(namedHeader, ['phone', 'order_id', 'greeting'], { headerTextColumn: 'greeting' }, CLI_FIELD_NAMES);

    expect(plan.slots[0]).toStrictEqual({
      name: 'header.first_name',
      kind: 'text',
      component: 'header',
      variable: 'first_name',
      column: 'greeting',
    });
  });

  it('a text header without a variable: no header slot, the text is still kept', () => {
    const fixed = template({
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Spring sale' },
        { type: 'BODY', text: 'Hi {{1}}' },
      ],
    });
    const plan = planSend(fixed, ['phone', 'name'], { params: ['name'] }, CLI_FIELD_NAMES);

    expect(plan.slots).toStrictEqual([{ name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' }]);
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
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
      { name: 'button.2.url', kind: 'url', subType: 'url', component: 'button', variable: '1', buttonIndex: 2, column: 'tracking' },
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
      { name: 'button.0.url', kind: 'url', subType: 'url', component: 'button', variable: '1', buttonIndex: 0, column: 'track' },
      { name: 'button.2.url', kind: 'url', subType: 'url', component: 'button', variable: '1', buttonIndex: 2, column: 'invoice' },
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
      { name: 'body.order_id', kind: 'text', component: 'body', variable: 'order_id', column: 'order_id' },
      {
        name: 'button.0.url',
        kind: 'url',
        subType: 'url',
        component: 'button',
        variable: 'tracking_code',
        buttonIndex: 0,
        column: 'tracking_code',
      },
    ]);
  });

  it('no --button-url-column for a URL button with a variable → TEMPLATE_SLOT_UNFILLED naming button.0.url', () => {
    const error = refusal(springSale, ['phone', 'name', 'code', 'amount', 'until'], {
      headerTextColumn: 'name',
      params: ['code', 'amount', 'until'],
    });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([unfilledLine('button.0.url', "the end of button 0's link", 'give --button-url-column')]);
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

  const gif = template({
    components: [
      { type: 'HEADER', format: 'GIF' },
      { type: 'BODY', text: 'Hello' },
    ],
  });

  it('a GIF header is its own format, gif, sent through the Marketing Messages API', () => {
    const plan = planSend(gif, ['phone', 'file'], { headerMediaColumn: 'file' }, CLI_FIELD_NAMES, { endpoint: 'marketing-messages' });

    expect(plan.headerMedia).toStrictEqual({ format: 'gif', column: 'file' });
    expect(plan.slots).toStrictEqual([]);
  });

  it.each([
    ['no endpoint', {}],
    ['the messages endpoint', { endpoint: 'messages' }],
  ] as [string, PlanContext][])(
    'a GIF header with %s → TEMPLATE_ENDPOINT_UNSUPPORTED: Meta sends GIFs only as marketing messages',
    (_l, context) => {
      const error = refusal(gif, ['phone', 'file'], { headerMediaColumn: 'file' }, context);

      expect(error.code).toBe('TEMPLATE_ENDPOINT_UNSUPPORTED');
      expect(problemLines(error)).toStrictEqual([
        '  - its header is a GIF, which Meta sends only through the Marketing Messages API: pass --endpoint marketing-messages',
      ]);
    },
  );

  it('a DOCUMENT header: its file name is an optional slot, mapped with --param header.document.filename=COLUMN', () => {
    const document = template({
      components: [
        { type: 'HEADER', format: 'DOCUMENT' },
        { type: 'BODY', text: 'Your invoice {{1}}' },
      ],
    });
    const header = ['phone', 'invoice', 'pdf', 'file_name'];

    const plan = planSend(document, header, { params: ['invoice'], paramColumns: { 'header.document': 'pdf' } }, CLI_FIELD_NAMES);
    expect(plan.headerMedia).toStrictEqual({ format: 'document', column: 'pdf' });
    expect(plan.slots.map((s) => s.name)).toStrictEqual(['body.1']);

    const named = planSend(
      document,
      header,
      { params: ['invoice'], headerMediaColumn: 'pdf', paramColumns: { 'header.document.filename': 'file_name' } },
      CLI_FIELD_NAMES,
    );
    expect(named.slots).toStrictEqual([
      { name: 'header.document.filename', kind: 'filename', component: 'header', media: 'document', column: 'file_name' },
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'invoice' },
    ]);
  });

  it('an IMAGE header without --header-image-column → TEMPLATE_SLOT_UNFILLED naming header.image', () => {
    const error = refusal(springPromo, ['phone', 'name', 'discount', 'banner'], { params: ['name', 'discount'] });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([
      unfilledLine('header.image', 'the header image: an https link', 'give --header-image-column'),
    ]);
  });

  it('--header-image-column that is not a column of the file → TEMPLATE_MAPPING_INVALID naming it', () => {
    const error = refusal(springPromo, ['phone', 'name', 'discount'], { params: ['name', 'discount'], headerMediaColumn: 'banner' });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      '  - header.image (the header image: an https link) is to come from column "banner", which the file does not have',
    ]);
    expect(problemItems(error)).toStrictEqual([{ code: 'TEMPLATE_MAPPING_INVALID', column: 'banner' }]);
  });

  it('--header-image-column for a template without a media header → refused', () => {
    const error = refusal(orderUpdate, ['phone', 'name', 'order', 'banner'], { params: ['name', 'order'], headerMediaColumn: 'banner' });

    expect(problemLines(error)).toStrictEqual(['  - it has no media header, so --header-image-column does not apply']);
  });

  const location = template({
    components: [
      { type: 'HEADER', format: 'LOCATION' },
      { type: 'BODY', text: 'Hi {{1}}' },
    ],
  });

  it('a LOCATION header: header.location from --param, its name and address optional', () => {
    const plan = planSend(
      location,
      ['phone', 'name', 'place', 'store', 'street'],
      {
        params: ['name'],
        paramColumns: { 'header.location': 'place', 'header.location.name': 'store', 'header.location.address': 'street' },
      },
      CLI_FIELD_NAMES,
    );

    expect(plan.slots).toStrictEqual([
      { name: 'header.location', kind: 'location', component: 'header', column: 'place' },
      { name: 'header.location.name', kind: 'location_name', component: 'header', column: 'store' },
      { name: 'header.location.address', kind: 'location_address', component: 'header', column: 'street' },
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
    ]);
    expect(plan).not.toHaveProperty('headerMedia');

    const placeOnly = planSend(
      location,
      ['phone', 'name', 'place'],
      { params: ['name'], paramColumns: { 'header.location': 'place' } },
      CLI_FIELD_NAMES,
    );
    expect(placeOnly.slots.map((s) => s.name)).toStrictEqual(['header.location', 'body.1']);
  });

  it('a LOCATION header left unfilled → TEMPLATE_SLOT_UNFILLED naming header.location (not its optional name and address)', () => {
    const error = refusal(location, ['phone', 'name'], { params: ['name'] });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([unfilledLine('header.location', 'the place: latitude,longitude (e.g. 52.52,13.405)')]);
  });
});

describe('planSend: carousels, limited-time offers and coupon codes', () => {
  // A limited-time offer as Meta lists it: image header, offer with a countdown, body, copy-code and URL buttons.
  const offer = template({
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Expiring offer!', has_expiration: true } },
      { type: 'BODY', text: 'Good news, {{1}}! Use code {{2}} for 25% off.' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'COPY_CODE', text: 'Copy offer code' },
          { type: 'URL', text: 'Shop now', url: 'https://shop.example.com/offers?code={{1}}' },
        ],
      },
    ],
  });
  const offerColumns = ['phone', 'name', 'code', 'banner', 'ends'];

  it('a limited-time offer: header, body, the offer’s end and both buttons, in send order', () => {
    const plan = planSend(
      offer,
      offerColumns,
      {
        params: ['name', 'code'],
        headerMediaColumn: 'banner',
        buttonUrlColumns: ['code'],
        paramColumns: { 'lto.expiration': 'ends', 'button.0.coupon_code': 'code' },
      },
      CLI_FIELD_NAMES,
    );

    expect(plan.headerMedia).toStrictEqual({ format: 'image', column: 'banner' });
    expect(plan.slots).toStrictEqual([
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
      { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'code' },
      { name: 'lto.expiration', kind: 'expiration', component: 'limited_time_offer', column: 'ends' },
      {
        name: 'button.0.coupon_code',
        kind: 'coupon_code',
        component: 'button',
        buttonIndex: 0,
        subType: 'copy_code',
        maxLength: 15,
        column: 'code',
      },
      { name: 'button.1.url', kind: 'url', component: 'button', variable: '1', buttonIndex: 1, subType: 'url', column: 'code' },
    ]);
    expect(sendPlanSchema.parse(JSON.parse(JSON.stringify(plan)))).toStrictEqual(plan);
  });

  it('a limited-time offer without its end and coupon code → TEMPLATE_SLOT_UNFILLED naming each', () => {
    const error = refusal(offer, offerColumns, { params: ['name', 'code'], headerMediaColumn: 'banner', buttonUrlColumns: ['code'] });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([
      unfilledLine('lto.expiration', 'when the offer ends: an ISO 8601 time with offset, or epoch milliseconds'),
      unfilledLine('button.0.coupon_code', 'the coupon code the button copies'),
    ]);
  });

  it('an offer without a countdown (has_expiration false) has no lto.expiration slot', () => {
    const noCountdown = template({
      components: [
        { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!', has_expiration: false } },
        { type: 'BODY', text: 'Hi {{1}}' },
      ],
    });

    expect(planSend(noCountdown, ['phone', 'name'], { params: ['name'] }, CLI_FIELD_NAMES).slots.map((s) => s.name)).toStrictEqual([
      'body.1',
    ]);
  });

  it('an offer whose has_expiration is absent (Meta’s default, false) has no lto.expiration slot; its coupon code is at most 15', () => {
    const noFlag = template({
      components: [
        { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!' } },
        { type: 'BODY', text: 'Hi {{1}}' },
        { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy offer code' }] },
      ],
    });
    const plan = planSend(
      noFlag,
      ['phone', 'name', 'code'],
      { params: ['name'], paramColumns: { 'button.0.coupon_code': 'code' } },
      CLI_FIELD_NAMES,
    );

    expect(plan.slots.map((s) => [s.name, s.maxLength])).toStrictEqual([
      ['body.1', undefined],
      ['button.0.coupon_code', 15],
    ]);
    expect(
      refusal(noFlag, ['phone', 'name', 'ends', 'code'], { params: ['name'], paramColumns: { 'lto.expiration': 'ends' } }).message,
    ).toContain('--param lto.expiration=… names no slot of this template');
  });

  // A coupon template as Meta lists it: a quick reply (payload optional) and a copy-code button.
  const coupon = template({
    parameter_format: 'NAMED',
    components: [
      { type: 'BODY', text: 'Hi {{first_name}}, take {{discount}} off with code {{coupon_code}}.' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Unsubscribe' },
          { type: 'COPY_CODE', text: 'Copy offer code' },
        ],
      },
    ],
  });

  it('a copy-code button: its coupon code from --param button.1.coupon_code; the quick reply’s payload is left out unmapped', () => {
    const plan = planSend(
      coupon,
      ['phone', 'first_name', 'discount', 'coupon_code'],
      { paramColumns: { 'button.1.coupon_code': 'coupon_code' } },
      CLI_FIELD_NAMES,
    );

    expect(plan.slots).toStrictEqual([
      { name: 'body.first_name', kind: 'text', component: 'body', variable: 'first_name', column: 'first_name' },
      { name: 'body.discount', kind: 'text', component: 'body', variable: 'discount', column: 'discount' },
      { name: 'body.coupon_code', kind: 'text', component: 'body', variable: 'coupon_code', column: 'coupon_code' },
      {
        name: 'button.1.coupon_code',
        kind: 'coupon_code',
        component: 'button',
        buttonIndex: 1,
        subType: 'copy_code',
        maxLength: 20,
        column: 'coupon_code',
      },
    ]);
  });

  it('a copy-code button is not filled by a column named as the body variable: unmapped → TEMPLATE_SLOT_UNFILLED', () => {
    const error = refusal(coupon, ['phone', 'first_name', 'discount', 'coupon_code'], {});

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([unfilledLine('button.1.coupon_code', 'the coupon code the button copies')]);
  });

  // A media-card carousel: a body, then two cards with an image, a body variable, a quick reply and a URL button.
  const card = {
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'BODY', text: 'Only {{1}}' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'More like this' },
          { type: 'URL', text: 'Shop', url: 'https://shop.example.com/p/{{1}}' },
        ],
      },
    ],
  };
  const carousel = template({
    components: [
      { type: 'BODY', text: 'Hi {{1}}, new in:' },
      { type: 'CAROUSEL', cards: [card, card] },
    ],
  });
  const cardSlots: [string, string][] = [0, 1].flatMap((i): [string, string][] => [
    [`card.${i}.header.image`, `image${i}`],
    [`card.${i}.body.1`, `price${i}`],
    [`card.${i}.button.0.payload`, `payload${i}`],
    [`card.${i}.button.1.url`, `sku${i}`],
  ]);

  it('a carousel: every card’s slot from --param card.N.…, after the message’s own body', () => {
    const plan = planSend(
      carousel,
      ['phone', 'name', ...cardSlots.map(([, column]) => column)],
      { params: ['name'], paramColumns: Object.fromEntries(cardSlots) },
      CLI_FIELD_NAMES,
    );

    expect(plan).not.toHaveProperty('headerMedia');
    expect(plan.cardBodyTexts).toStrictEqual(['Only {{1}}', 'Only {{1}}']);
    expect(plan.slots).toStrictEqual([
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
      ...[0, 1].flatMap((card) => [
        { name: `card.${card}.header.image`, kind: 'media', component: 'header', media: 'image', card, column: `image${card}` },
        { name: `card.${card}.body.1`, kind: 'text', component: 'body', variable: '1', card, column: `price${card}` },
        {
          name: `card.${card}.button.0.payload`,
          kind: 'payload',
          component: 'button',
          buttonIndex: 0,
          subType: 'quick_reply',
          card,
          column: `payload${card}`,
        },
        {
          name: `card.${card}.button.1.url`,
          kind: 'url',
          component: 'button',
          variable: '1',
          buttonIndex: 1,
          subType: 'url',
          card,
          column: `sku${card}`,
        },
      ]),
    ]);
    expect(sendPlanSchema.parse(JSON.parse(JSON.stringify(plan)))).toStrictEqual(plan);
  });

  it('a carousel whose cards are not mapped → TEMPLATE_SLOT_UNFILLED naming each required card slot (shorthand flags fill none)', () => {
    const error = refusal(carousel, ['phone', 'name', 'banner', 'sku'], { params: ['name'] });

    expect(error.code).toBe('TEMPLATE_SLOT_UNFILLED');
    expect(problemLines(error)).toStrictEqual([
      unfilledLine('card.0.header.image', 'card 0: the header image: an https link'),
      unfilledLine('card.0.body.1', 'card 0: body variable {{1}}'),
      unfilledLine('card.0.button.1.url', "card 0: the end of button 1's link"),
      unfilledLine('card.1.header.image', 'card 1: the header image: an https link'),
      unfilledLine('card.1.body.1', 'card 1: body variable {{1}}'),
      unfilledLine('card.1.button.1.url', "card 1: the end of button 1's link"),
    ]);
    expect(refusal(carousel, ['phone', 'name', 'banner'], { params: ['name'], headerMediaColumn: 'banner' }).message).toContain(
      'it has no media header, so --header-image-column does not apply',
    );
  });

  it('a --param naming a slot the template does not have → TEMPLATE_MAPPING_INVALID listing its slots', () => {
    const error = refusal(coupon, ['phone', 'first_name', 'discount', 'coupon_code'], {
      paramColumns: { 'button.0.coupon_code': 'coupon_code', 'button.1.coupon_code': 'coupon_code' },
    });

    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual([
      '  - --param button.0.coupon_code=… names no slot of this template ' +
        '(its slots: body.first_name, body.discount, body.coupon_code, button.0.payload, button.1.coupon_code)',
    ]);
  });

  it('an authentication code is mapped once, as body.1; mapping its button → refused, pointing at body.1', () => {
    const authentication = requirementsOf(
      messageTemplateSchema.parse({
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
      }),
    );

    expect(planSend(authentication, ['phone', 'otp'], { params: ['otp'] }, CLI_FIELD_NAMES).slots).toStrictEqual([
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', maxLength: 15, column: 'otp' },
      {
        name: 'button.0.code',
        kind: 'text',
        component: 'button',
        buttonIndex: 0,
        subType: 'url',
        maxLength: 15,
        sameAs: 'body.1',
        column: 'otp',
      },
    ]);
    const error = refusal(authentication, ['phone', 'otp'], { params: ['otp'], paramColumns: { 'button.0.code': 'otp' } });
    expect(error.code).toBe('TEMPLATE_MAPPING_INVALID');
    expect(problemLines(error)).toStrictEqual(['  - --param button.0.code=… : button.0.code is filled from body.1; map body.1 instead']);
  });
});

describe('sendPlanSchema: plans stored before slots had names', () => {
  it('a stored header, body and URL-button slot without name or kind → read as header.N, body.N and button.N.url', () => {
    const stored = {
      name: 'spring_sale_v2',
      language: 'en_GB',
      parameterFormat: 'POSITIONAL',
      slots: [
        { component: 'header', variable: '1', column: 'name' },
        { component: 'body', variable: '1', column: 'code' },
        { component: 'button', variable: '1', buttonIndex: 2, column: 'code' },
      ],
      bodyText: 'Use code {{1}} to save {{2}} until {{3}}.',
      headerText: 'Hello {{1}}',
    };

    expect(sendPlanSchema.parse(stored).slots).toStrictEqual([
      { name: 'header.1', kind: 'text', component: 'header', variable: '1', column: 'name' },
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'code' },
      { name: 'button.2.url', kind: 'url', component: 'button', variable: '1', buttonIndex: 2, subType: 'url', column: 'code' },
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
    expect(problemItems(error).map((p) => p.code)).toStrictEqual([
      'TEMPLATE_MAPPING_INVALID',
      'TEMPLATE_MAPPING_INVALID',
      'TEMPLATE_SLOT_UNFILLED',
      'TEMPLATE_SLOT_UNFILLED',
      'TEMPLATE_SLOT_UNFILLED',
    ]);
    for (const part of [
      'its status is PAUSED',
      'its body takes 2 variable(s)',
      'body.2 (body variable {{2}}) is required and no column fills it',
      "button.0.url (the end of button 0's link) is required and no column fills it",
      'header.image (the header image: an https link) is required and no column fills it',
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
