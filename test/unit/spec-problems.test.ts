import { describe, expect, it } from 'vitest';
import { campaignSpecSchema } from '../../src/campaigns/spec/campaign-spec.js';
import { checkCampaignSpec } from '../../src/campaigns/spec/check-spec.js';
import { CLI_FIELD_NAMES, JSON_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { readCampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import { fieldOfMessage } from '../../src/campaigns/spec/spec-problems.js';
import { AppError } from '../../src/errors/app-error.js';
import { ProblemsError } from '../../src/errors/problems-error.js';
import { refusalOf } from '../support/refusal.js';

const CONTEXT = { now: Date.parse('2026-11-22T12:00:00Z'), defaultPhoneNumberId: '106540352242922' };
const TEMPLATE = { template: { name: 'order_update', language: 'en_US' } };

/** checkCampaignSpec reports every broken rule: one as it is, several as one ProblemsError naming each field. */
describe('campaign spec: every problem at once', () => {
  it('throws a single broken rule as its own AppError, code and message unchanged', () => {
    const spec = campaignSpecSchema.parse({ ...TEMPLATE, priority: 'urgent' });
    const error = refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, CONTEXT));
    expect(error).not.toBeInstanceOf(ProblemsError);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'OPTION_INVALID', message: '--priority "urgent": use high, normal or low' });
  });

  it('collects every independent rule, each item naming its JSON field, the message one per line', () => {
    const spec = campaignSpecSchema.parse({
      ...TEMPLATE,
      priority: 'urgent',
      schedule: { at: 'next tuesday' },
      window: { days: 'mon-fri' },
      csv: { defaultCountry: 'XX' },
      phoneNumberId: 'abc',
    });
    const error = refusalOf(() => checkCampaignSpec(spec, JSON_FIELD_NAMES, CONTEXT));
    expect(error).toBeInstanceOf(ProblemsError);
    const problems = error as ProblemsError;
    expect(problems.code).toBe('OPTION_INVALID');
    expect(problems.problems.map((p) => p.field)).toStrictEqual([
      'phoneNumberId',
      'csv.defaultCountry',
      'priority',
      'schedule.at',
      'window.days',
    ]);
    expect(problems.message.split('\n')).toHaveLength(5);
    expect(problems.message.split('\n')[2]).toBe('priority "urgent": use high, normal or low');
  });

  it('names several codes SPEC_INVALID, and the CLI its flags', () => {
    const spec = campaignSpecSchema.parse({ ...TEMPLATE, priority: 'urgent' });
    const error = refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, { ...CONTEXT, defaultPhoneNumberId: undefined }));
    expect(error).toMatchObject({ code: 'SPEC_INVALID' });
    expect((error as ProblemsError).problems.map((p) => [p.code, p.field])).toStrictEqual([
      ['CONFIG_INVALID', '--phone-number-id'],
      ['OPTION_INVALID', '--priority'],
    ]);
    expect((error as Error).message).toMatch(/^No phone number to send from: .*--phone-number-id\n--priority "urgent"/);
  });

  it('reads every issue of the flags for the API, the CLI keeps the first', () => {
    const input = { template: 'order_update', language: 'en_US', priority: 5, tempalte: 'x', params: 'a', maxCost: -1 };
    const { problems } = readCampaignFlags(input);
    expect(problems.map((p) => p.field).sort()).toStrictEqual(['maxCost', 'params', 'priority', 'tempalte']);
    expect(problems.every((p) => p.code === 'OPTION_INVALID')).toBe(true);
    expect(problems.find((p) => p.field === 'maxCost')?.detail).toBe(
      "maxCost: give an amount in the rate card's currency, e.g. 250 or 99.50",
    );
    const cli = refusalOf(() => parseCampaignSpec({ ...TEMPLATE, priority: 5, csv: { params: 'a' } }, CLI_FIELD_NAMES));
    expect(cli).not.toBeInstanceOf(ProblemsError);
    expect(cli).toMatchObject({ code: 'OPTION_INVALID', message: '--params: expected array, received string' });
  });

  it('reads the right fields of flags whose other fields are wrong, so the rest is checked too', () => {
    expect(readCampaignFlags({ template: 'order_update', prioritty: 'high', window: '09:00-17:00', days: 5 }).flags).toStrictEqual({
      template: 'order_update',
      window: '09:00-17:00',
    });
    expect(readCampaignFlags([]).flags).toBeUndefined();
  });

  it('finds the field a message names first, as a whole name', () => {
    expect(fieldOfMessage('window.days needs window.hours HH:MM-HH:MM', JSON_FIELD_NAMES)).toBe('window.days');
    expect(fieldOfMessage('--start-deadline 2026 needs --at: a deadline', CLI_FIELD_NAMES)).toBe('schedule.startDeadline');
    expect(fieldOfMessage('nothing named here', JSON_FIELD_NAMES)).toBeUndefined();
  });
});
