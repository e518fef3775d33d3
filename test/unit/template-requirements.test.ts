import { describe, expect, it } from 'vitest';
import { placeholdersIn, renderPlaceholders, requirementsOf } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema, templateListSchema, type MessageTemplate } from '../../src/templates/template-schema.js';
import { readFileSync } from 'node:fs';

function template(fields: Partial<MessageTemplate> & Pick<MessageTemplate, 'components'>): MessageTemplate {
  return messageTemplateSchema.parse({ name: 't', language: 'en', status: 'APPROVED', ...fields });
}

const list = templateListSchema.parse(
  JSON.parse(readFileSync(new URL('../fixtures/reference/examples/templates-list.response.json', import.meta.url), 'utf8')),
);

describe('placeholdersIn', () => {
  it('positional: sorted numerically, not as strings', () => {
    expect(placeholdersIn('{{10}} {{2}} {{1}} {{3}}', 'POSITIONAL')).toStrictEqual(['1', '2', '3', '10']);
  });

  it('positional: a repeated placeholder counts once', () => {
    expect(placeholdersIn('{{2}} and {{1}} and {{2}} again', 'POSITIONAL')).toStrictEqual(['1', '2']);
  });

  it('named: in order of first appearance, repeats counted once', () => {
    expect(placeholdersIn('Hi {{first_name}}, order {{order_id}} for {{first_name}}, {{a_b}}', 'NAMED')).toStrictEqual([
      'first_name',
      'order_id',
      'a_b',
    ]);
  });

  it('tolerates spaces inside the braces', () => {
    expect(placeholdersIn('{{ 1 }} {{2 }}', 'POSITIONAL')).toStrictEqual(['1', '2']);
  });

  it('text without placeholders, or with malformed ones, has none', () => {
    expect(placeholdersIn('Hello there', 'POSITIONAL')).toStrictEqual([]);
    expect(placeholdersIn('{1} {{}} {{first-name}}', 'NAMED')).toStrictEqual([]);
  });
});

describe('requirementsOf', () => {
  it('the positional example template: text header variable, sorted body variables, URL button with its index', () => {
    const spring = list.data.find((t) => t.name === 'spring_sale_v2');
    expect(spring).toBeDefined();
    if (spring === undefined) return;

    expect(requirementsOf(spring)).toStrictEqual({
      id: '300000000000003',
      name: 'spring_sale_v2',
      language: 'en_GB',
      status: 'APPROVED',
      category: 'MARKETING',
      parameterFormat: 'POSITIONAL',
      header: { kind: 'text', text: 'Hello {{1}}', variables: ['1'] },
      body: { text: 'Use code {{1}} to save {{2}} until {{3}}.', variables: ['1', '2', '3'] },
      urlButtons: [{ index: 0, variables: ['1'], url: expect.any(String) as unknown }],
      cardBodies: [],
      kind: 'standard',
      slots: [
        { name: 'header.1', kind: 'text', required: true, about: 'header variable {{1}}', component: 'header', variable: '1' },
        { name: 'body.1', kind: 'text', required: true, about: 'body variable {{1}}', component: 'body', variable: '1' },
        { name: 'body.2', kind: 'text', required: true, about: 'body variable {{2}}', component: 'body', variable: '2' },
        { name: 'body.3', kind: 'text', required: true, about: 'body variable {{3}}', component: 'body', variable: '3' },
        {
          name: 'button.0.url',
          kind: 'url',
          required: true,
          about: "the end of button 0's link",
          component: 'button',
          button: { index: 0, subType: 'url' },
          variable: '1',
        },
        {
          name: 'button.1.payload',
          kind: 'payload',
          required: false,
          about: 'what a tap on "Stop promotions" sends back',
          component: 'button',
          button: { index: 1, subType: 'quick_reply' },
        },
      ],
    });
  });

  it('the named example template: IMAGE header → media, named body variables in order', () => {
    const order = list.data.find((t) => t.name === 'order_ready_named');
    expect(order).toBeDefined();
    if (order === undefined) return;

    expect(requirementsOf(order)).toMatchObject({
      status: 'PAUSED',
      parameterFormat: 'NAMED',
      header: { kind: 'media', format: 'IMAGE' },
      body: { variables: ['first_name', 'order_id'] },
      urlButtons: [],
    });
  });

  it('parameter_format defaults to POSITIONAL', () => {
    const t = template({ components: [{ type: 'BODY', text: '{{2}} {{1}}' }] });

    expect(requirementsOf(t).parameterFormat).toBe('POSITIONAL');
    expect(requirementsOf(t).body.variables).toStrictEqual(['1', '2']);
  });

  it.each([
    ['IMAGE', { kind: 'media', format: 'IMAGE' }],
    ['VIDEO', { kind: 'media', format: 'VIDEO' }],
    ['DOCUMENT', { kind: 'media', format: 'DOCUMENT' }],
    ['GIF', { kind: 'media', format: 'GIF' }],
    ['LOCATION', { kind: 'location' }],
  ] as const)('%s header → %o', (format, header) => {
    expect(requirementsOf(template({ components: [{ type: 'HEADER', format }] })).header).toStrictEqual(header);
  });

  it('a text header without variables has none; no header at all is kind none', () => {
    expect(requirementsOf(template({ components: [{ type: 'HEADER', format: 'TEXT', text: 'Hello' }] })).header).toStrictEqual({
      kind: 'text',
      text: 'Hello',
      variables: [],
    });
    expect(requirementsOf(template({ components: [{ type: 'BODY', text: 'Hi' }] })).header).toStrictEqual({ kind: 'none' });
  });

  it('named text header variables', () => {
    const t = template({ parameter_format: 'NAMED', components: [{ type: 'HEADER', format: 'TEXT', text: 'Hi {{first_name}}' }] });

    expect(requirementsOf(t).header).toStrictEqual({ kind: 'text', text: 'Hi {{first_name}}', variables: ['first_name'] });
  });

  it('URL buttons: index is the button position among all buttons; static URLs and other types need nothing', () => {
    const t = template({
      components: [
        { type: 'BODY', text: 'Hi' },
        { type: 'FOOTER', text: 'bye' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Stop' },
            { type: 'URL', text: 'Static', url: 'https://example.com/fixed' },
            { type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' },
            { type: 'PHONE_NUMBER', text: 'Call', phone_number: '+14155550123' },
          ],
        },
      ],
    });

    expect(requirementsOf(t).urlButtons).toStrictEqual([{ index: 2, variables: ['1'], url: 'https://example.com/t/{{1}}' }]);
  });

  it('named URL button variable', () => {
    const t = template({
      parameter_format: 'NAMED',
      components: [{ type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://example.com/t/{{code}}' }] }],
    });

    expect(requirementsOf(t).urlButtons).toStrictEqual([{ index: 0, variables: ['code'], url: 'https://example.com/t/{{code}}' }]);
  });

  it('a carousel: each card’s body text in card order, empty for a card without a body', () => {
    const t = template({
      components: [
        { type: 'BODY', text: 'Hi {{1}}, new in:' },
        {
          type: 'CAROUSEL',
          cards: [
            {
              components: [
                { type: 'HEADER', format: 'IMAGE' },
                { type: 'BODY', text: 'Only {{1}}' },
              ],
            },
            { components: [{ type: 'HEADER', format: 'IMAGE' }] },
            {
              components: [
                { type: 'HEADER', format: 'IMAGE' },
                { type: 'BODY', text: 'Last pair' },
              ],
            },
          ],
        },
      ],
    });

    expect(requirementsOf(t).cardBodies).toStrictEqual(['Only {{1}}', '', 'Last pair']);
    expect(requirementsOf(template({ components: [{ type: 'BODY', text: 'Hi' }] })).cardBodies).toStrictEqual([]);
  });

  it('a template with no body has an empty body requirement', () => {
    expect(requirementsOf(template({ components: [{ type: 'HEADER', format: 'IMAGE' }] })).body).toStrictEqual({ text: '', variables: [] });
  });
});

describe('renderPlaceholders', () => {
  it('replaces every occurrence of known names', () => {
    const values = new Map([
      ['1', 'Ana'],
      ['2', '£25'],
    ]);

    expect(renderPlaceholders('Hi {{1}}, save {{2}}. Bye {{1}}!', values)).toBe('Hi Ana, save £25. Bye Ana!');
  });

  it('named placeholders, with spaces inside braces', () => {
    expect(renderPlaceholders('Olá {{ first_name }}', new Map([['first_name', 'João']]))).toBe('Olá João');
  });

  it('leaves unknown names as written', () => {
    expect(renderPlaceholders('Hi {{1}} {{2}}', new Map([['1', 'Ana']]))).toBe('Hi Ana {{2}}');
  });

  it('inserts values literally ($& and $1 are not replacement patterns)', () => {
    expect(renderPlaceholders('Total: {{1}}', new Map([['1', '$& $1 $$']]))).toBe('Total: $& $1 $$');
  });

  it('does not re-expand placeholders that appear inside values', () => {
    expect(
      renderPlaceholders(
        '{{1}} {{2}}',
        new Map([
          ['1', '{{2}}'],
          ['2', 'x'],
        ]),
      ),
    ).toBe('{{2}} x');
  });
});
