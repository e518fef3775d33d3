import { describe, expect, it } from 'vitest';
import { campaignSpecSchema, type CampaignSpecInput } from '../../src/campaigns/spec/campaign-spec.js';
import { checkCampaignSpec } from '../../src/campaigns/spec/check-spec.js';
import { CLI_FIELD_NAMES, FLAG_FIELD_NAMES, JSON_FIELD_NAMES, SPEC_FIELDS, type FieldNames } from '../../src/campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import type { CampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { specOfFlags } from '../../src/campaigns/spec/spec-of-flags.js';
import { refusalOf } from '../support/refusal.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const CONTEXT = { now: NOW, defaultPhoneNumberId: '106540352242922' };

/** A spec as an API caller would send it, every group used. */
const JSON_SPEC = {
  name: '  Winter sale 2026 ',
  template: { name: 'order_update', language: 'en_US' },
  csv: {
    phoneColumn: 'mobile',
    params: ['first_name', 'order_id'],
    paramColumns: { '1': 'Vorname' },
    buttonUrlColumns: ['track'],
    clickUrlColumn: 'link',
    languageColumn: 'lang',
    timezoneColumn: 'zone',
    defaultCountry: 'de',
    defaultTimezone: 'europe/berlin',
    fixWhitespace: true,
    delimiter: 'tab',
  },
  schedule: { at: '2026-11-23T09:00:00+01:00', startDeadline: '2026-11-23T10:00:00+01:00', validFor: '6h' },
  window: { hours: '09:00-20:00', days: 'mon-fri' },
  priority: 'HIGH',
  phoneNumberId: '123456',
  campaignId: 'winter-sale',
  allowRepeat: true,
  allowUsMarketing: true,
  endpoint: 'marketing-messages',
  mediaBy: 'LINK',
  ttl: '36h',
  displayTimezone: 'Europe/Berlin',
  dryRun: true,
  maxCost: 250,
  trackClicks: true,
} satisfies CampaignSpecInput;

/** The same campaign as its flags: what `campaign send`'s options are (commander camelCases them) and what the API's JSON is. */
const FLAGS: CampaignFlags = {
  name: '  Winter sale 2026 ',
  template: 'order_update',
  language: 'en_US',
  phoneColumn: 'mobile',
  params: ['first_name', 'order_id'],
  param: { '1': 'Vorname' },
  buttonUrlColumn: ['track'],
  trackClicks: true,
  clickUrlColumn: 'link',
  languageColumn: 'lang',
  timezoneColumn: 'zone',
  defaultCountry: 'de',
  defaultTimezone: 'europe/berlin',
  fixWhitespace: true,
  delimiter: 'tab',
  at: '2026-11-23T09:00:00+01:00',
  startDeadline: '2026-11-23T10:00:00+01:00',
  validFor: '6h',
  window: '09:00-20:00',
  days: 'mon-fri',
  priority: 'HIGH',
  phoneNumberId: '123456',
  campaign: 'winter-sale',
  allowRepeat: true,
  allowUsMarketing: true,
  endpoint: 'marketing-messages',
  mediaBy: 'LINK',
  ttl: '36h',
  displayTimezone: 'Europe/Berlin',
  dryRun: true,
  maxCost: 250,
};

/** The leaf fields of the schema, as JSON paths. */
function schemaFields(): string[] {
  const unwrap = (schema: unknown): { shape?: Record<string, unknown> } => {
    let current = schema as { def: { type: string; innerType?: unknown }; shape?: Record<string, unknown> };
    while (current.def.type === 'optional' || current.def.type === 'default') current = current.def.innerType as typeof current;
    return current;
  };
  const walk = (shape: Record<string, unknown>, prefix: string): string[] =>
    Object.entries(shape).flatMap(([key, field]) => {
      const inner = unwrap(field);
      // A record (paramColumns) is a leaf: its keys are the template's variables.
      return inner.shape === undefined ? [`${prefix}${key}`] : walk(inner.shape, `${prefix}${key}.`);
    });
  return walk(campaignSpecSchema.shape, '');
}

describe('CampaignSpec: one object for the CLI and the HTTP API', () => {
  it('the field names cover exactly the fields of the schema, each with its own flag', () => {
    expect([...SPEC_FIELDS].sort()).toStrictEqual(schemaFields().sort());
    const flags = Object.values(CLI_FIELD_NAMES);
    expect(new Set(flags).size).toBe(SPEC_FIELDS.length);
    for (const flag of flags) expect(flag).toMatch(/^--[a-z]+(-[a-z]+)*$/);
    expect(JSON_FIELD_NAMES['schedule.at']).toBe('schedule.at');
  });

  it('reads a valid JSON spec, defaults filled in, and checks it into the values a campaign is made of', () => {
    const spec = parseCampaignSpec(JSON_SPEC, JSON_FIELD_NAMES);
    expect(spec).toStrictEqual(JSON_SPEC);
    expect(parseCampaignSpec({ text: { body: 'Hi {{name}}' } }, JSON_FIELD_NAMES)).toStrictEqual({
      text: { body: 'Hi {{name}}' },
      csv: { phoneColumn: 'phone' },
    });
    const checked = checkCampaignSpec(spec, JSON_FIELD_NAMES, CONTEXT);
    expect(checked).toStrictEqual({
      // Trimmed at the edge.
      name: 'Winter sale 2026',
      message: { kind: 'template', name: 'order_update', language: 'en_US', languageColumn: 'lang' },
      phoneNumberId: '123456',
      campaignId: 'winter-sale',
      columns: {
        params: ['first_name', 'order_id'],
        paramColumns: { '1': 'Vorname' },
        headerTextColumn: undefined,
        headerMediaColumn: undefined,
        buttonUrlColumns: ['track'],
        headerFileColumn: undefined,
      },
      phoneColumn: 'mobile',
      defaultCountry: 'DE',
      fixWhitespace: true,
      delimiter: '\t',
      timezoneColumn: 'zone',
      defaultTimezone: 'Europe/Berlin',
      priority: 'high',
      schedule: {
        startsAt: Date.parse('2026-11-23T08:00:00Z'),
        startDeadline: Date.parse('2026-11-23T09:00:00Z'),
        expiresAt: Date.parse('2026-11-23T14:00:00Z'),
      },
      window: { start: 540, end: 1200, days: [1, 2, 3, 4, 5] },
      allowRepeat: true,
      allowUsMarketing: true,
      endpoint: 'marketing-messages',
      // Read in either case.
      mediaBy: 'link',
      ttlSeconds: 129_600,
      dryRun: true,
      displayTimezone: 'Europe/Berlin',
      maxCost: 250,
      clicks: { urlColumn: 'link' },
      audience: undefined,
      requireConsent: false,
      ignoreFrequencyCaps: false,
      retryCappedAfterMs: undefined,
      testTo: undefined,
    });
  });

  it('the flags and the nested JSON object give the same spec, and the same checked campaign', () => {
    const fromFlags = parseCampaignSpec(specOfFlags(FLAGS), CLI_FIELD_NAMES);
    expect(fromFlags).toStrictEqual(parseCampaignSpec(JSON_SPEC, JSON_FIELD_NAMES));
    expect(checkCampaignSpec(fromFlags, FLAG_FIELD_NAMES, CONTEXT)).toStrictEqual(
      checkCampaignSpec(parseCampaignSpec(JSON_SPEC, JSON_FIELD_NAMES), JSON_FIELD_NAMES, CONTEXT),
    );
    // Flags not given are left out, as a JSON caller leaves them out (commander's `--param` default is {}).
    const text = specOfFlags({ text: 'Hi {{name}}', previewUrl: true, phoneColumn: 'phone', param: {} });
    expect(text).toStrictEqual({ text: { body: 'Hi {{name}}', previewUrl: true }, csv: { phoneColumn: 'phone' } });
  });

  it('maps every flag onto its own field', () => {
    const spec = parseCampaignSpec(
      specOfFlags({
        ...FLAGS,
        text: 'Hi',
        previewUrl: true,
        headerTextColumn: 'h',
        headerImageColumn: 'img',
        headerFileColumn: 'file',
        expiresAt: 'c',
        audience: 'weekly',
        where: 'tier = "gold"',
        requireConsent: true,
        ignoreFrequencyCaps: true,
        retryCappedAfter: '24h',
        testTo: ['+4915112345678'],
      }),
      CLI_FIELD_NAMES,
    );
    const valueAt = (path: string): unknown =>
      path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], spec);
    for (const field of SPEC_FIELDS) expect(valueAt(field), field).toBeDefined();
  });

  it.each<[string, unknown, string, string]>([
    [
      'a wrong type',
      { schedule: { at: 1_700_000_000 } },
      '--at: expected string, received number',
      'schedule.at: expected string, received number',
    ],
    [
      'a list item of a wrong type',
      { csv: { params: ['a', 2] } },
      '--params[1]: expected string, received number',
      'csv.params[1]: expected string, received number',
    ],
    // No flag sets a group as a whole: it is named by its JSON path either way.
    [
      'a group that is not an object',
      { template: 'order_update' },
      'template: expected object, received string',
      'template: expected object, received string',
    ],
    [
      'a flag given a value it takes none',
      { dryRun: 'yes' },
      '--dry-run: expected boolean, received string',
      'dryRun: expected boolean, received string',
    ],
  ])('refuses %s with OPTION_INVALID naming the flag or the JSON field', (_label, input, cli, json) => {
    for (const [names, expected] of [
      [CLI_FIELD_NAMES, cli],
      [JSON_FIELD_NAMES, json],
    ] as [FieldNames, string][]) {
      const error = refusalOf(() => parseCampaignSpec(input, names));
      expect(error.code).toBe('OPTION_INVALID');
      expect(error.message).toBe(expected);
    }
  });

  it('refuses a field the spec does not have, naming it and listing the fields', () => {
    const error = refusalOf(() => parseCampaignSpec({ csv: { phone: 'mobile' }, tempalte: {} }, JSON_FIELD_NAMES));
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toMatch(
      /^(csv\.phone|tempalte): no such field in a campaign spec; check the spelling \(fields: name, template\.name, /,
    );
    expect(refusalOf(() => parseCampaignSpec([], JSON_FIELD_NAMES)).message).toMatch(/^the campaign spec: expected object/);
  });
});

/** A template spec with `extra` over it: every rule below is broken in one field. */
const template = (extra: Record<string, unknown>): unknown => ({ template: { name: 'order_update', language: 'en_US' }, ...extra });
const windowed = (csv: Record<string, unknown>): unknown => template({ window: { hours: '09:00-20:00' }, csv });

describe('the rules of a spec name the flag for the CLI and the JSON field for the API', () => {
  it.each<[string, unknown, string, string, string]>([
    [
      'priority',
      template({ priority: 'urgent' }),
      'OPTION_INVALID',
      '--priority "urgent": use high, normal or low',
      'priority "urgent": use high, normal or low',
    ],
    [
      'phoneNumberId',
      template({ phoneNumberId: '12ab' }),
      'OPTION_INVALID',
      '--phone-number-id "12ab": give the numeric',
      'phoneNumberId "12ab": give the numeric',
    ],
    [
      'campaignId',
      template({ campaignId: 'a:b' }),
      'OPTION_INVALID',
      '--campaign "a:b": a campaign ID starts with a letter',
      'campaignId "a:b": a campaign ID starts with a letter',
    ],
    [
      'csv.defaultCountry',
      template({ csv: { defaultCountry: 'XX1' } }),
      'OPTION_INVALID',
      '--default-country "XX1": use a two-letter',
      'csv.defaultCountry "XX1": use a two-letter',
    ],
    [
      'csv.delimiter',
      template({ csv: { delimiter: 'ab' } }),
      'OPTION_INVALID',
      '--delimiter "ab": use one of , ; | or tab',
      'csv.delimiter "ab": use one of , ; | or tab',
    ],
    [
      'csv.defaultTimezone',
      windowed({ defaultTimezone: 'Mars/Olympus' }),
      'TIMEZONE_NOT_FOUND',
      '--default-timezone "Mars/Olympus": give an IANA',
      'csv.defaultTimezone "Mars/Olympus": give an IANA',
    ],
    [
      'csv.defaultTimezone (not a zone name)',
      windowed({ defaultTimezone: '+01:00' }),
      'OPTION_INVALID',
      '--default-timezone "+01:00": give an IANA',
      'csv.defaultTimezone "+01:00": give an IANA',
    ],
    [
      'csv.timezoneColumn',
      template({ csv: { timezoneColumn: 'zone' } }),
      'OPTION_INVALID',
      '--timezone-column needs --window HH:MM-HH:MM',
      'csv.timezoneColumn needs window.hours HH:MM-HH:MM',
    ],
    [
      'window.days alone',
      template({ window: { days: 'mon-fri' } }),
      'OPTION_INVALID',
      '--days needs --window HH:MM-HH:MM',
      'window.days needs window.hours HH:MM-HH:MM',
    ],
    [
      'window.hours',
      template({ window: { hours: '09:00-09:00' } }),
      'OPTION_INVALID',
      '--window "09:00-09:00" is empty',
      'window.hours "09:00-09:00" is empty',
    ],
    [
      'mediaBy',
      template({ mediaBy: 'upload' }),
      'OPTION_INVALID',
      '--media-by "upload": use id or link',
      'mediaBy "upload": use id or link',
    ],
    [
      'mediaBy link with csv.headerFileColumn',
      template({ mediaBy: 'link', csv: { headerFileColumn: 'file' } }),
      'OPTION_INVALID',
      '--header-file-column reads local files, which have no link to send: drop --media-by link',
      'csv.headerFileColumn reads local files, which have no link to send: drop mediaBy link',
    ],
    [
      'trackClicks without csv.clickUrlColumn',
      template({ trackClicks: true }),
      'CLICK_TRACKING_INVALID',
      "--track-clicks needs --click-url-column COLUMN: the column of the CSV that holds each row's destination",
      "trackClicks needs csv.clickUrlColumn COLUMN: the column of the CSV that holds each row's destination",
    ],
    [
      'csv.clickUrlColumn without trackClicks',
      template({ csv: { clickUrlColumn: 'link' } }),
      'CLICK_TRACKING_INVALID',
      '--click-url-column is the destination of a tracked link: give --track-clicks too',
      'csv.clickUrlColumn is the destination of a tracked link: give trackClicks too',
    ],
    [
      'csv.headerMediaColumn with csv.headerFileColumn',
      template({ csv: { headerMediaColumn: 'url', headerFileColumn: 'file' } }),
      'OPTION_INVALID',
      '--header-image-column and --header-file-column both fill the media header',
      'csv.headerMediaColumn and csv.headerFileColumn both fill the media header',
    ],
    [
      'template.name without template.language or csv.languageColumn',
      { template: { name: 'order_update' } },
      'OPTION_INVALID',
      '--template order_update needs --language CODE, e.g. en_US (see `campaign templates list`), or --language-column COLUMN',
      'template.name order_update needs template.language CODE, e.g. en_US (see `campaign templates list`), or csv.languageColumn COLUMN',
    ],
    [
      'csv.languageColumn with text.body',
      { text: { body: 'Hi {{name}}' }, csv: { languageColumn: 'lang' } },
      'OPTION_INVALID',
      '--language-column is for templates; with --text',
      'csv.languageColumn is for templates; with text.body',
    ],
    [
      'trackClicks with text.body',
      { text: { body: 'Hi {{name}}' }, trackClicks: true, csv: { clickUrlColumn: 'link' } },
      'OPTION_INVALID',
      '--track-clicks, --click-url-column are for templates; with --text',
      'trackClicks, csv.clickUrlColumn are for templates; with text.body',
    ],
    [
      'window.days',
      template({ window: { hours: '09:00-20:00', days: 'funday' } }),
      'OPTION_INVALID',
      '--days "funday": give weekdays',
      'window.days "funday": give weekdays',
    ],
    [
      'schedule.at malformed',
      template({ schedule: { at: 'tomorrow' } }),
      'OPTION_INVALID',
      '--at "tomorrow": give a date and time',
      'schedule.at "tomorrow": give a date and time',
    ],
    [
      'schedule.at impossible',
      template({ schedule: { at: '2027-02-30T09:00:00+01:00' } }),
      'TIME_INVALID',
      '--at "2027-02-30T09:00:00+01:00": 2027-02-30 has no such day',
      'schedule.at "2027-02-30T09:00:00+01:00": 2027-02-30 has no such day',
    ],
    [
      'schedule.at past',
      template({ schedule: { at: '2026-11-01T09:00:00Z' } }),
      'TIME_IN_PAST',
      '--at 2026-11-01T09:00:00Z is in the past (now is 2026-11-22T12:00:00.000Z); leave --at out',
      'schedule.at 2026-11-01T09:00:00Z is in the past (now is 2026-11-22T12:00:00.000Z); leave schedule.at out',
    ],
    [
      'schedule.startDeadline',
      template({ schedule: { startDeadline: '2026-11-23T09:00:00Z' } }),
      'OPTION_INVALID',
      '--start-deadline 2026-11-23T09:00:00Z needs --at: a deadline',
      'schedule.startDeadline 2026-11-23T09:00:00Z needs schedule.at: a deadline',
    ],
    [
      'schedule.expiresAt',
      template({ schedule: { expiresAt: '2026-11-23T09:00:00Z', validFor: '2h' } }),
      'OPTION_INVALID',
      '--expires-at and --valid-for both say when rows expire',
      'schedule.expiresAt and schedule.validFor both say when rows expire',
    ],
    [
      'schedule.validFor',
      template({ schedule: { validFor: 'soon' } }),
      'OPTION_INVALID',
      '--valid-for "soon": give a duration',
      'schedule.validFor "soon": give a duration',
    ],
    [
      'displayTimezone',
      template({ displayTimezone: 'Mars/Base' }),
      'TIMEZONE_NOT_FOUND',
      '--display-timezone "Mars/Base": give an IANA time zone',
      'displayTimezone "Mars/Base": give an IANA time zone',
    ],
    [
      'displayTimezone (not a zone name)',
      template({ displayTimezone: 'Berlin time' }),
      'OPTION_INVALID',
      '--display-timezone "Berlin time": give an IANA time zone',
      'displayTimezone "Berlin time": give an IANA time zone',
    ],
    [
      'template.language',
      { template: { name: 'order_update' } },
      'OPTION_INVALID',
      '--template order_update needs --language CODE',
      'template.name order_update needs template.language CODE',
    ],
    [
      'template.name',
      { template: { language: 'en_US' } },
      'OPTION_INVALID',
      '--language en_US needs --template NAME',
      'template.language en_US needs template.name NAME',
    ],
    [
      'neither',
      {},
      'OPTION_INVALID',
      'say what to send: --template NAME --language CODE',
      'say what to send: template.name NAME template.language CODE',
    ],
    [
      'text and template',
      template({ text: { body: 'Hi' } }),
      'OPTION_INVALID',
      '--text sends a free-form text, --template and --language an approved template',
      'text.body sends a free-form text, template.name and template.language an approved template',
    ],
    [
      'text and csv.params',
      { text: { body: 'Hi' }, csv: { params: ['a'], headerMediaColumn: 'img' } },
      'OPTION_INVALID',
      '--params, --header-image-column are for templates; with --text,',
      'csv.params, csv.headerMediaColumn are for templates; with text.body,',
    ],
    [
      'text.previewUrl',
      template({ text: { previewUrl: true } }),
      'OPTION_INVALID',
      '--preview-url applies to --text only',
      'text.previewUrl applies to text.body only',
    ],
    [
      'text.body',
      { text: { body: 'Hi {{name' } },
      'OPTION_INVALID',
      '--text has a stray "{{" at character 4',
      'text.body has a stray "{{" at character 4',
    ],
    [
      'name (too long)',
      template({ name: 'x'.repeat(101) }),
      'OPTION_INVALID',
      '--name: the campaign name has 101 characters; give at most 100',
      'name: the campaign name has 101 characters; give at most 100',
    ],
    [
      'name (blank)',
      template({ name: ' \u200b ' }),
      'OPTION_INVALID',
      '--name: the campaign name is empty',
      'name: the campaign name is empty',
    ],
    [
      'name (an escape sequence)',
      template({ name: 'spring\u001b[31m' }),
      'TEXT_CONTROL_CHARACTER',
      '--name: the campaign name contains a control character, invisible in most editors (U+001B ESC at character 7)',
      'name: the campaign name contains a control character',
    ],
    [
      'name (a bidi override)',
      template({ name: 'promo\u202Egpj.exe' }),
      'TEXT_CONTROL_CHARACTER',
      '--name: the campaign name contains a bidirectional override or isolate, which can disguise text (U+202E RLO at character 6)',
      'name: the campaign name contains a bidirectional override',
    ],
    [
      'name (two lines)',
      template({ name: 'spring\npromo' }),
      'TEXT_CONTROL_CHARACTER',
      '--name: the campaign name contains a line break; give it on one line',
      'name: the campaign name contains a line break',
    ],
    [
      'maxCost',
      template({ maxCost: -1 }),
      'OPTION_INVALID',
      "--max-cost -1: give an amount in the rate card's currency",
      "maxCost -1: give an amount in the rate card's currency",
    ],
  ])('%s', (_field, input, code, cli, json) => {
    for (const [names, expected] of [
      [CLI_FIELD_NAMES, cli],
      [JSON_FIELD_NAMES, json],
    ] as [FieldNames, string][]) {
      const error = refusalOf(() => checkCampaignSpec(parseCampaignSpec(input, names), names, CONTEXT));
      expect(error.code).toBe(code);
      // The message starts with the field's name as the caller knows it.
      expect(error.message.slice(0, expected.length)).toBe(expected);
    }
  });

  it('a language per row: csv.languageColumn alone names the template’s language; media by ID unless told', () => {
    const spec = parseCampaignSpec({ template: { name: 'order_update' }, csv: { languageColumn: 'lang' } }, JSON_FIELD_NAMES);
    expect(checkCampaignSpec(spec, JSON_FIELD_NAMES, CONTEXT)).toMatchObject({
      message: { kind: 'template', name: 'order_update', language: undefined, languageColumn: 'lang' },
      columns: { headerFileColumn: undefined },
      mediaBy: 'id',
    });
    const files = parseCampaignSpec(template({ csv: { headerFileColumn: 'file' } }), JSON_FIELD_NAMES);
    expect(checkCampaignSpec(files, JSON_FIELD_NAMES, CONTEXT)).toMatchObject({ columns: { headerFileColumn: 'file' }, mediaBy: 'id' });
  });

  it('no number in the spec and none configured: CONFIG_INVALID naming the setting and the field', () => {
    const spec = parseCampaignSpec(template({}), JSON_FIELD_NAMES);
    const context = { now: NOW, defaultPhoneNumberId: undefined };
    expect(refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, context))).toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'No phone number to send from: set WHATSAPP_PHONE_NUMBER_ID or pass --phone-number-id',
    });
    expect(refusalOf(() => checkCampaignSpec(spec, JSON_FIELD_NAMES, context)).message).toBe(
      'No phone number to send from: set WHATSAPP_PHONE_NUMBER_ID or pass phoneNumberId',
    );
  });

  it("a text with the caller's own template-only option (the CLI's --templates) is refused with the others", () => {
    const spec = parseCampaignSpec({ text: { body: 'Hi {{name}}' }, csv: { params: ['a'] } }, CLI_FIELD_NAMES);
    expect(refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, { ...CONTEXT, templateOnly: ['--templates'] })).message).toBe(
      '--params, --templates are for templates; with --text, name each column in the text ' +
        'itself as {{column}} (e.g. --text "Hi {{first_name}}")',
    );
  });

  it('checks in the order an operator fixes them: what to send before the number, the number before the times', () => {
    const spec = parseCampaignSpec({ phoneNumberId: 'x', schedule: { at: 'tomorrow' } }, JSON_FIELD_NAMES);
    expect(refusalOf(() => checkCampaignSpec(spec, JSON_FIELD_NAMES, CONTEXT)).message).toMatch(/^say what to send/);
    const withTemplate = parseCampaignSpec(template({ phoneNumberId: 'x', schedule: { at: 'tomorrow' } }), JSON_FIELD_NAMES);
    expect(refusalOf(() => checkCampaignSpec(withTemplate, JSON_FIELD_NAMES, CONTEXT)).message).toMatch(/^phoneNumberId "x"/);
  });
});
