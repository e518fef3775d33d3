import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveColumns } from '../../src/campaigns/ingest/column-mapping.js';
import { checkRow } from '../../src/campaigns/ingest/row-check.js';
import { skipsForUsMarketing, usMarketingPaused } from '../../src/campaigns/ingest/us-marketing.js';
import { planSend } from '../../src/campaigns/send-plan.js';
import { isUsNumber, usAreaCodes } from '../../src/phone/us-numbers.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { templateListSchema } from '../../src/templates/template-schema.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

describe('isUsNumber', () => {
  it.each([['+12125550123'], ['+14155550123'], ['+13125550123'], ['+12015550123']])('%s is a US number', (e164) => {
    expect(isUsNumber(e164)).toBe(true);
  });

  it.each([
    ['+14165550123', 'Toronto, Canada'],
    ['+16045550123', 'Vancouver, Canada'],
    ['+18765550123', 'Jamaica'],
    ['+17875550123', 'Puerto Rico (its own ISO code)'],
    ['+447911123456', 'the UK'],
    ['+5511987654321', 'Brazil'],
  ])('%s (%s) is not', (e164) => {
    expect(isUsNumber(e164)).toBe(false);
  });

  it('lists the US area codes and none of Canada', () => {
    const codes = usAreaCodes();
    expect(codes).toContain('212');
    expect(codes).toContain('415');
    expect(codes).not.toContain('416');
    expect(codes).not.toContain('604');
    expect(codes.length).toBeGreaterThan(300);
  });
});

describe('usMarketingPaused', () => {
  it('pauses a MARKETING template unless --allow-us-marketing', () => {
    expect(usMarketingPaused('MARKETING', false)).toBe(true);
    expect(usMarketingPaused('MARKETING', true)).toBe(false);
  });

  it.each([['UTILITY'], ['AUTHENTICATION'], [undefined]])('leaves %s alone', (category) => {
    expect(usMarketingPaused(category, false)).toBe(false);
  });
});

describe('a checked row of a MARKETING campaign', () => {
  const list = templateListSchema.parse(JSON.parse(readFileSync(new URL('../../samples/templates.json', import.meta.url), 'utf8')));
  const promo = list.data.find((t) => t.name === 'spring_promo');
  if (promo === undefined) throw new Error('no spring_promo in samples/templates.json');
  const header = ['phone', 'first', 'discount', 'banner'];
  const plan = planSend(requirementsOf(promo), header, { params: ['first', 'discount'], headerMediaColumn: 'banner' }, CLI_FIELD_NAMES);
  const rules = { plan, mapping: resolveColumns(header, plan, 'phone', 'customers.csv', CLI_FIELD_NAMES['csv.phoneColumn']) };
  const skipped = (phone: string, category: string, allow: boolean) => {
    const verdict = checkRow([phone, 'Ana', '20%', 'https://example.com/b.png'], rules);
    if (!verdict.ok) throw new Error(verdict.detail);
    return skipsForUsMarketing(usMarketingPaused(category, allow), verdict.country);
  };

  it('skips a US +1 number', () => {
    expect(skipped('+1 212 555 0123', 'MARKETING', false)).toBe(true);
  });

  it('skips a US number written without a country code under --default-country US', () => {
    const verdict = checkRow(['(212) 555-0123', 'Ana', '20%', 'https://example.com/b.png'], { ...rules, defaultCountry: 'US' });
    expect(verdict.ok && skipsForUsMarketing(true, verdict.country)).toBe(true);
  });

  it('sends a Canadian +1 number and a non-US one', () => {
    expect(skipped('+1 416 555 0123', 'MARKETING', false)).toBe(false);
    expect(skipped('+44 7911 123456', 'MARKETING', false)).toBe(false);
  });

  it('sends UTILITY and AUTHENTICATION templates to US numbers', () => {
    expect(skipped('+1 212 555 0123', 'UTILITY', false)).toBe(false);
    expect(skipped('+1 212 555 0123', 'AUTHENTICATION', false)).toBe(false);
  });

  it('sends to US numbers with --allow-us-marketing', () => {
    expect(skipped('+1 212 555 0123', 'MARKETING', true)).toBe(false);
  });
});
