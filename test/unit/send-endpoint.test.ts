import { describe, expect, it } from 'vitest';
import { checkCampaignSpec } from '../../src/campaigns/spec/check-spec.js';
import { CLI_FIELD_NAMES, JSON_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import { checkEndpointCategory } from '../../src/campaigns/spec/send-endpoint.js';
import { AppError } from '../../src/errors/app-error.js';
import { exitCodeOf } from '../../src/cli/usage-errors.js';
import { refusalOf } from '../support/refusal.js';

const CONTEXT = { now: Date.parse('2026-11-20T12:00:00Z'), defaultPhoneNumberId: '106540352242922' };
const TEMPLATE = { template: { name: 'winter_sale', language: 'en_US' } };

describe('--endpoint: the Marketing Messages API for MARKETING templates only', () => {
  it('defaults to /messages and takes marketing-messages for a template', () => {
    const plain = parseCampaignSpec(TEMPLATE, CLI_FIELD_NAMES);
    expect(checkCampaignSpec(plain, CLI_FIELD_NAMES, CONTEXT).endpoint).toBe('messages');
    const mm = parseCampaignSpec({ ...TEMPLATE, endpoint: 'marketing-messages' }, CLI_FIELD_NAMES);
    expect(checkCampaignSpec(mm, CLI_FIELD_NAMES, CONTEXT).endpoint).toBe('marketing-messages');
  });

  it('refuses --text with --endpoint marketing-messages as a usage error (exit 2)', () => {
    const spec = parseCampaignSpec({ text: { body: 'Hi {{name}}' }, endpoint: 'marketing-messages' }, CLI_FIELD_NAMES);
    const error = refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, CONTEXT));
    expect(error.code).toBe('OPTION_INVALID');
    expect(exitCodeOf(error)).toBe(2);
    expect(error.message).toBe(
      '--endpoint marketing-messages sends MARKETING templates only, not --text: drop --endpoint, ' +
        'or send a MARKETING template with --template',
    );
  });

  it('refuses an endpoint it does not know, naming the field as the caller knows it', () => {
    const spec = parseCampaignSpec({ ...TEMPLATE, endpoint: 'marketing_lite' }, JSON_FIELD_NAMES);
    expect(refusalOf(() => checkCampaignSpec(spec, JSON_FIELD_NAMES, CONTEXT)).message).toBe(
      'endpoint "marketing_lite": use messages or marketing-messages',
    );
  });

  it('refuses a UTILITY (or uncategorised) template on marketing-messages, and lets MARKETING and /messages through', () => {
    const utility = refusalOf(() =>
      checkEndpointCategory('marketing-messages', { name: 'order_update', category: 'UTILITY' }, CLI_FIELD_NAMES),
    );
    expect(utility.code).toBe('TEMPLATE_NOT_MARKETING');
    expect(utility.message).toBe(
      '--endpoint marketing-messages sends MARKETING templates only; order_update is UTILITY: drop --endpoint to send it through /messages',
    );
    expect(() => checkEndpointCategory('marketing-messages', { name: 'x', category: undefined }, CLI_FIELD_NAMES)).toThrow(AppError);
    expect(() => checkEndpointCategory('marketing-messages', { name: 'x', category: 'MARKETING' }, CLI_FIELD_NAMES)).not.toThrow();
    expect(() => checkEndpointCategory('messages', { name: 'x', category: 'UTILITY' }, CLI_FIELD_NAMES)).not.toThrow();
  });
});

describe('--ttl: a marketing time-to-live, through the Marketing Messages API only', () => {
  const mm = { ...TEMPLATE, endpoint: 'marketing-messages' };

  it('reads 12h to 30d into seconds', () => {
    const check = (ttl: string) =>
      checkCampaignSpec(parseCampaignSpec({ ...mm, ttl }, CLI_FIELD_NAMES), CLI_FIELD_NAMES, CONTEXT).ttlSeconds;
    expect(check('36h')).toBe(129_600);
    expect(check('12h')).toBe(43_200);
    expect(check('30d')).toBe(2_592_000);
    expect(checkCampaignSpec(parseCampaignSpec(mm, CLI_FIELD_NAMES), CLI_FIELD_NAMES, CONTEXT).ttlSeconds).toBeUndefined();
  });

  it('refuses it without --endpoint marketing-messages, and outside 12h to 30d, naming the field', () => {
    const without = refusalOf(() =>
      checkCampaignSpec(parseCampaignSpec({ ...TEMPLATE, ttl: '36h' }, CLI_FIELD_NAMES), CLI_FIELD_NAMES, CONTEXT),
    );
    expect(without.code).toBe('OPTION_INVALID');
    expect(without.message).toMatch(/^--ttl needs --endpoint marketing-messages: /);
    for (const ttl of ['11h', '31d', '90m', 'soon']) {
      const error = refusalOf(() => checkCampaignSpec(parseCampaignSpec({ ...mm, ttl }, JSON_FIELD_NAMES), JSON_FIELD_NAMES, CONTEXT));
      expect(error.code, ttl).toBe('OPTION_INVALID');
      expect(error.message, ttl).toMatch(/^ttl "/);
    }
  });
});
