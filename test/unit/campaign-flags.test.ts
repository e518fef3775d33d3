import { describe, expect, it } from 'vitest';
import { FLAG_FIELD_NAMES, campaignFlagsSchema, specOfFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { CLI_FIELD_NAMES, SPEC_FIELDS } from '../../src/campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';

/** The HTTP API's JSON form of a campaign: the CLI's long flags, camelCased, onto the same spec. */
describe('campaign flags (the API JSON form)', () => {
  it('names each field by its flag, camelCased', () => {
    expect(FLAG_FIELD_NAMES.phoneNumberId).toBe('phoneNumberId');
    expect(FLAG_FIELD_NAMES['schedule.at']).toBe('at');
    expect(FLAG_FIELD_NAMES['csv.headerMediaColumn']).toBe('headerImageColumn');
    expect(FLAG_FIELD_NAMES['csv.paramColumns']).toBe('param');
    expect(FLAG_FIELD_NAMES.campaignId).toBe('campaign');
    // Every flag a spec field has is a field of the JSON form.
    const jsonFields = Object.keys(campaignFlagsSchema.shape).sort();
    expect(SPEC_FIELDS.map((f) => FLAG_FIELD_NAMES[f]).sort()).toStrictEqual(jsonFields);
    expect(Object.values(CLI_FIELD_NAMES).every((flag) => flag.startsWith('--'))).toBe(true);
  });

  it('maps the flags onto the spec the CLI makes of the same flags', () => {
    const flags = campaignFlagsSchema.parse({
      name: 'Spring sale',
      template: 'order_update',
      language: 'en',
      params: ['name', 'order_id'],
      param: { coupon: 'code' },
      headerImageColumn: 'image',
      at: '2026-12-01T09:00:00+01:00',
      validFor: '48h',
      window: '09:00-20:00',
      days: 'mon-fri',
      priority: 'high',
      phoneNumberId: '1234',
    });
    expect(parseCampaignSpec(specOfFlags(flags), FLAG_FIELD_NAMES)).toStrictEqual({
      name: 'Spring sale',
      template: { name: 'order_update', language: 'en' },
      csv: { phoneColumn: 'phone', params: ['name', 'order_id'], paramColumns: { coupon: 'code' }, headerMediaColumn: 'image' },
      schedule: { at: '2026-12-01T09:00:00+01:00', validFor: '48h' },
      window: { hours: '09:00-20:00', days: 'mon-fri' },
      priority: 'high',
      phoneNumberId: '1234',
    });
  });

  it('refuses a misspelt flag', () => {
    const parsed = campaignFlagsSchema.safeParse({ template: 'x', phoneNumberID: '1' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['phoneNumberID'] });
  });
});
