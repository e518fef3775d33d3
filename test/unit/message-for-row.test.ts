import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { messageForRow } from '../../src/campaigns/message-for-row.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { messageBody } from '../../src/cloud-api/message-body.js';

function definition(template: CampaignDefinition['template']): CampaignDefinition {
  return {
    id: 'spring24',
    createdAt: 0,
    phoneNumberId: '200000000000002',
    template,
    source: { file: 'c.csv', phoneColumn: 'phone', paramColumns: template.bodyVariables.map((v) => `col_${v}`) },
  };
}

const positional = definition({ name: 'spring_sale', language: 'en_GB', parameterFormat: 'POSITIONAL', bodyVariables: ['1', '2'] });
const named = definition({
  name: 'order_ready_named',
  language: 'pt_BR',
  parameterFormat: 'NAMED',
  bodyVariables: ['first_name', 'order_id'],
  headerMedia: 'image',
});

function job(fields: Partial<SendJob> = {}): SendJob {
  return { campaignId: 'spring24', row: 7, to: '+14155550123', values: ['Ana', 'A-1'], ...fields };
}

describe('messageForRow', () => {
  it('positional: values in order, no parameter names, callback data campaign/row', () => {
    const built = messageForRow(positional, job());

    expect(built).toStrictEqual({
      ok: true,
      message: {
        kind: 'template',
        to: '+14155550123',
        name: 'spring_sale',
        language: 'en_GB',
        body: [{ text: 'Ana' }, { text: 'A-1' }],
        callbackData: 'spring24/7',
      },
    });
  });

  it('named: each value carries the parameter name from the campaign’s bodyVariables', () => {
    const built = messageForRow(named, job({ headerLink: 'https://cdn.example.com/banner.jpg' }));

    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.message).toMatchObject({
      body: [
        { text: 'Ana', name: 'first_name' },
        { text: 'A-1', name: 'order_id' },
      ],
      header: { type: 'image', link: 'https://cdn.example.com/banner.jpg' },
    });
  });

  it('named with an image header builds exactly reference examples/send-template-named.request.json (plus callback data)', () => {
    const built = messageForRow(
      named,
      job({ to: '+5511987654321', values: ['João', 'A-99812'], headerLink: 'https://cdn.example.com/banner.jpg' }),
    );
    expect(built.ok).toBe(true);
    if (!built.ok) return;

    const example = JSON.parse(
      readFileSync(new URL('../fixtures/reference/examples/send-template-named.request.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    expect(messageBody(built.message)).toStrictEqual({ ...example, biz_opaque_callback_data: 'spring24/7' });
  });

  it.each(['image', 'video', 'document'] as const)('a %s header takes the job’s header link', (headerMedia) => {
    const built = messageForRow(
      definition({ ...positional.template, headerMedia }),
      job({ headerLink: 'https://cdn.example.com/file' }),
    );

    expect(built).toMatchObject({ ok: true, message: { header: { type: headerMedia, link: 'https://cdn.example.com/file' } } });
  });

  it('a media header without a link in the job → not ok', () => {
    const built = messageForRow(named, job());

    expect(built.ok).toBe(false);
    expect(!built.ok && built.detail).toContain('header image link');
  });

  it('no header is sent when the template has none, even if the job has a link', () => {
    const built = messageForRow(positional, job({ headerLink: 'https://cdn.example.com/x.jpg' }));

    expect(built.ok && 'header' in built.message).toBe(false);
  });

  it.each([
    ['fewer values', ['Ana']],
    ['more values', ['Ana', 'A-1', 'extra']],
    ['no values', []],
  ])('%s than the template takes → not ok', (_label, values) => {
    const built = messageForRow(positional, job({ values }));

    expect(built.ok).toBe(false);
    expect(!built.ok && built.detail).toContain(`job has ${values.length} values, template spring_sale takes 2`);
  });

  it('a template without variables and a job without values → a body with no parameters', () => {
    const built = messageForRow(definition({ name: 'hello', language: 'en', parameterFormat: 'POSITIONAL', bodyVariables: [] }), job({ values: [] }));

    expect(built).toMatchObject({ ok: true, message: { body: [] } });
  });
});
