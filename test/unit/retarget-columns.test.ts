import { describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { retargetCells, retargetHeader } from '../../src/campaigns/retarget/retarget-columns.js';

const base = {
  id: 'c-src',
  createdAt: 0,
  phoneNumberId: '1',
  source: { file: 'x.csv', phoneColumn: 'mobile', fixWhitespace: false },
};

const template: CampaignDefinition = {
  ...base,
  plan: {
    name: 'promo',
    language: 'en_US',
    parameterFormat: 'POSITIONAL',
    slots: [
      { name: 'header.1', kind: 'text', component: 'header', variable: '1', column: 'name' },
      { name: 'body.1', kind: 'text', component: 'body', variable: '1', column: 'name' },
      { name: 'body.2', kind: 'text', component: 'body', variable: '2', column: 'code' },
    ],
    headerMedia: undefined,
    bodyText: 'Hi {{1}}, {{2}}',
  },
};

describe('campaign retarget: the file made of the source rows', () => {
  it("a template campaign: the phone column, then each slot's column once, in order", () => {
    const header = retargetHeader(template);
    expect(header).toStrictEqual(['mobile', 'name', 'code']);
    expect(retargetCells(template, header, { phone: '+4915110000001', values: ['Ana', 'Ana', 'X1'] })).toStrictEqual([
      '+4915110000001',
      'Ana',
      'X1',
    ]);
  });

  it('a media header: its column last, filled from the header link', () => {
    const withMedia: CampaignDefinition = { ...template, plan: { ...template.plan!, headerMedia: { format: 'image', column: 'banner' } } };
    const header = retargetHeader(withMedia);
    expect(header).toStrictEqual(['mobile', 'name', 'code', 'banner']);
    expect(retargetCells(withMedia, header, { phone: '+1', values: ['A', 'A', 'B'], headerLink: 'https://e.com/a.jpg' })).toStrictEqual([
      '+1',
      'A',
      'B',
      'https://e.com/a.jpg',
    ]);
  });

  it("a text campaign: the text's columns", () => {
    const text: CampaignDefinition = { ...base, text: { body: 'Hi {{first}} {{last}}', previewUrl: false, columns: ['first', 'last'] } };
    const header = retargetHeader(text);
    expect(header).toStrictEqual(['mobile', 'first', 'last']);
    expect(retargetCells(text, header, { phone: '+2', values: ['Bo', 'Li'] })).toStrictEqual(['+2', 'Bo', 'Li']);
  });
});
