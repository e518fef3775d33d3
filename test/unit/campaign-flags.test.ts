import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { campaignFlagsSchema, readCampaignFlags, type CampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { CAMPAIGN_FLAG_HELP } from '../../src/campaigns/spec/campaign-flag-help.js';
import { checkCampaignSpec } from '../../src/campaigns/spec/check-spec.js';
import { CLI_FIELD_NAMES, FLAG_FIELD_NAMES, SPEC_FIELDS, type FieldNames } from '../../src/campaigns/spec/field-names.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import { specOfFlags } from '../../src/campaigns/spec/spec-of-flags.js';
import { register } from '../../src/cli/commands/send.js';
import { campaignFlagsOf, type SendCommandOptions } from '../../src/cli/run/send.js';
import { refusalOf } from '../support/refusal.js';

const CONTEXT = { now: Date.parse('2026-11-22T12:00:00Z'), defaultPhoneNumberId: '106540352242922' };
/** What the command line has of its own: not fields of a campaign. */
const CLI_ONLY = ['templates', 'json'];

/** `campaign send`, as main.ts registers it. */
function sendCommand(): Command {
  const program = new Command('campaign').exitOverride();
  register(program);
  const send = program.commands.find((command) => command.name() === 'send');
  if (send === undefined) throw new Error('send is not registered');
  return send;
}

/** Commander's options of `campaign send FILE ...args`, its action not run. */
function optionsOf(args: string[]): SendCommandOptions {
  const send = sendCommand();
  let options: SendCommandOptions | undefined;
  send.action((_file: string, given: SendCommandOptions) => {
    options = given;
  });
  (send.parent as Command).parse(['send', 'recipients.csv', ...args], { from: 'user' });
  if (options === undefined) throw new Error('the action did not run');
  return options;
}

/** The spec each edge makes, read and checked as sendCampaign reads and checks it. */
const checked = (flags: CampaignFlags, names: FieldNames) =>
  checkCampaignSpec(parseCampaignSpec(specOfFlags(flags), names), names, CONTEXT);
const cliFlags = (args: string[]) => campaignFlagsOf(optionsOf(args));
function apiFlags(json: unknown): CampaignFlags {
  const { flags, problems } = readCampaignFlags(JSON.parse(JSON.stringify(json)));
  expect(problems).toStrictEqual([]);
  return flags!;
}

/** The one edge shape of a campaign: the CLI's long flags, camelCased, are the HTTP API's JSON fields, onto the same spec. */
describe('campaign flags (the CLI and the API JSON form)', () => {
  it('names each field by its flag, camelCased', () => {
    expect(FLAG_FIELD_NAMES.phoneNumberId).toBe('phoneNumberId');
    expect(FLAG_FIELD_NAMES['schedule.at']).toBe('at');
    expect(FLAG_FIELD_NAMES['csv.headerMediaColumn']).toBe('headerImageColumn');
    expect(FLAG_FIELD_NAMES['csv.paramColumns']).toBe('param');
    expect(FLAG_FIELD_NAMES.campaignId).toBe('campaign');
    expect(FLAG_FIELD_NAMES.maxCost).toBe('maxCost');
    // Every flag a spec field has is a field of the JSON form, and each has its help at `send`.
    const jsonFields = Object.keys(campaignFlagsSchema.shape).sort();
    expect(SPEC_FIELDS.map((f) => FLAG_FIELD_NAMES[f]).sort()).toStrictEqual(jsonFields);
    expect(Object.keys(CAMPAIGN_FLAG_HELP).sort()).toStrictEqual(jsonFields);
    expect(Object.values(CLI_FIELD_NAMES).every((flag) => flag.startsWith('--'))).toBe(true);
  });

  it("`campaign send` has exactly one flag per field of the schema, the one CLI_FIELD_NAMES names, and the CLI's own", () => {
    const options = sendCommand().options;
    const fields = options.map((option) => option.attributeName()).filter((name) => !CLI_ONLY.includes(name));
    expect(fields.sort()).toStrictEqual(Object.keys(campaignFlagsSchema.shape).sort());
    expect(options.map((option) => option.attributeName()).filter((name) => CLI_ONLY.includes(name))).toStrictEqual(CLI_ONLY);
    const flags = options.filter((option) => !CLI_ONLY.includes(option.attributeName())).map((option) => option.long);
    expect(flags.sort()).toStrictEqual(Object.values(CLI_FIELD_NAMES).sort());
  });

  it('maps the flags onto the spec', () => {
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
      maxCost: 99.5,
    });
    expect(parseCampaignSpec(specOfFlags(flags), FLAG_FIELD_NAMES)).toStrictEqual({
      name: 'Spring sale',
      template: { name: 'order_update', language: 'en' },
      csv: { phoneColumn: 'phone', params: ['name', 'order_id'], paramColumns: { coupon: 'code' }, headerMediaColumn: 'image' },
      schedule: { at: '2026-12-01T09:00:00+01:00', validFor: '48h' },
      window: { hours: '09:00-20:00', days: 'mon-fri' },
      priority: 'high',
      phoneNumberId: '1234',
      maxCost: 99.5,
    });
  });

  it('maps the language column, the header file column and the media source onto the spec, alike at both edges', () => {
    const args = ['--template', 'order_update', '--language-column', 'lang', '--header-file-column', 'file', '--media-by', 'ID'];
    const json = { template: 'order_update', languageColumn: 'lang', headerFileColumn: 'file', mediaBy: 'ID' };
    const fromApi = parseCampaignSpec(specOfFlags(apiFlags(json)), FLAG_FIELD_NAMES);

    expect(fromApi).toStrictEqual({
      template: { name: 'order_update' },
      csv: { phoneColumn: 'phone', languageColumn: 'lang', headerFileColumn: 'file' },
      mediaBy: 'ID',
    });
    expect(parseCampaignSpec(specOfFlags(cliFlags(args)), CLI_FIELD_NAMES)).toStrictEqual(fromApi);
    expect(checked(apiFlags(json), FLAG_FIELD_NAMES)).toMatchObject({
      message: { kind: 'template', name: 'order_update', language: undefined, languageColumn: 'lang' },
      columns: { headerFileColumn: 'file' },
      mediaBy: 'id',
    });
    expect(checked(cliFlags(args), CLI_FIELD_NAMES)).toStrictEqual(checked(apiFlags(json), FLAG_FIELD_NAMES));
  });

  it('refuses a local header file sent by link, and a header filled by both a link column and a file column, at both edges', () => {
    const template = ['--template', 'order_update', '--language', 'en_US'];
    expect(
      refusalOf(() => checked(cliFlags([...template, '--header-file-column', 'file', '--media-by', 'link']), CLI_FIELD_NAMES)).message,
    ).toBe('--header-file-column reads local files, which have no link to send: drop --media-by link (files are uploaded)');
    expect(
      refusalOf(() =>
        checked(
          apiFlags({ template: 'order_update', language: 'en_US', headerFileColumn: 'file', headerImageColumn: 'url' }),
          FLAG_FIELD_NAMES,
        ),
      ).message,
    ).toBe('headerImageColumn and headerFileColumn both fill the media header: give one of them');
    expect(
      refusalOf(() => checked(apiFlags({ template: 'order_update', language: 'en_US', mediaBy: 'upload' }), FLAG_FIELD_NAMES)),
    ).toMatchObject({
      code: 'OPTION_INVALID',
      message: 'mediaBy "upload": use id or link',
    });
  });

  it("the CLI's flags and the same JSON give the same CampaignSpec, and the same checked campaign", () => {
    const args = [
      ['--name', 'Spring sale', '--template', 'order_update', '--language', 'en_US', '--params', 'first_name, order_id'],
      ['--param', 'coupon=code', '--param', 'store=shop', '--header-image-column', 'banner', '--button-url-column', 'track'],
      ['--default-country', 'de', '--fix-whitespace', '--delimiter', ';', '--phone-number-id', '123456', '--campaign', 'spring'],
      ['--allow-repeat', '--allow-us-marketing', '--endpoint', 'marketing-messages', '--ttl', '36h', '--priority', 'high'],
      ['--at', '2026-11-23T09:00:00+01:00', '--start-deadline', '2026-11-23T10:00:00+01:00', '--valid-for', '6h'],
      ['--window', '09:00-20:00', '--days', 'mon-fri', '--timezone-column', 'zone', '--default-timezone', 'Europe/Berlin'],
      ['--display-timezone', 'Europe/Berlin', '--max-cost', '99.50', '--dry-run', '--templates', 'templates.json', '--json'],
      ['--language-column', 'lang', '--media-by', 'link'],
      ['--require-consent', '--ignore-frequency-caps', '--retry-capped-after', '24h'],
      ['--track-clicks', '--click-url-column', 'link'],
    ].flat();
    const json = {
      name: 'Spring sale',
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      param: { coupon: 'code', store: 'shop' },
      headerImageColumn: 'banner',
      buttonUrlColumn: ['track'],
      defaultCountry: 'de',
      fixWhitespace: true,
      delimiter: ';',
      phoneNumberId: '123456',
      campaign: 'spring',
      allowRepeat: true,
      allowUsMarketing: true,
      endpoint: 'marketing-messages',
      ttl: '36h',
      priority: 'high',
      at: '2026-11-23T09:00:00+01:00',
      startDeadline: '2026-11-23T10:00:00+01:00',
      validFor: '6h',
      window: '09:00-20:00',
      days: 'mon-fri',
      timezoneColumn: 'zone',
      defaultTimezone: 'Europe/Berlin',
      displayTimezone: 'Europe/Berlin',
      maxCost: 99.5,
      dryRun: true,
      languageColumn: 'lang',
      requireConsent: true,
      ignoreFrequencyCaps: true,
      retryCappedAfter: '24h',
      mediaBy: 'link',
      trackClicks: true,
      clickUrlColumn: 'link',
    };
    const fromCli = parseCampaignSpec(specOfFlags(cliFlags(args)), CLI_FIELD_NAMES);
    const fromApi = parseCampaignSpec(specOfFlags(apiFlags(json)), FLAG_FIELD_NAMES);
    expect(fromCli).toStrictEqual(fromApi);
    expect(fromCli.maxCost).toBe(99.5);
    // Every field of the spec is set by one of them: none is lost on the way.
    const valueAt = (path: string): unknown =>
      path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], fromApi);
    const unset = SPEC_FIELDS.filter((field) => valueAt(field) === undefined);
    // --header-file-column is left out: it and --header-image-column both fill the media header (checked below).
    // An audience (and its filter) takes the file's place, and a test send refuses --campaign: each is tried on its own.
    expect(unset).toStrictEqual([
      'text.body',
      'text.previewUrl',
      'csv.headerTextColumn',
      'csv.headerFileColumn',
      'schedule.expiresAt',
      'audience.name',
      'audience.where',
      'testTo',
    ]);
    expect(checked(cliFlags(args), CLI_FIELD_NAMES)).toStrictEqual(checked(apiFlags(json), FLAG_FIELD_NAMES));
    // Flags not given: the same campaign as a JSON caller that leaves them out (commander's defaults are the spec's).
    expect(parseCampaignSpec(specOfFlags(cliFlags(['--text', 'Hi {{name}}'])), CLI_FIELD_NAMES)).toStrictEqual(
      parseCampaignSpec(specOfFlags(apiFlags({ text: 'Hi {{name}}' })), FLAG_FIELD_NAMES),
    );
  });

  it('names a field as its flag at the CLI and as its JSON field at the API, in the same words', () => {
    const template = { template: 'order_update', language: 'en_US' };
    const cli = refusalOf(() =>
      checked(cliFlags(['--template', 'order_update', '--language', 'en_US', '--phone-number-id', '12ab']), CLI_FIELD_NAMES),
    );
    const api = refusalOf(() => checked(apiFlags({ ...template, phoneNumberId: '12ab' }), FLAG_FIELD_NAMES));
    expect(cli).toMatchObject({
      code: 'OPTION_INVALID',
      message: '--phone-number-id "12ab": give the numeric phone-number ID from WhatsApp Manager',
    });
    expect(api).toMatchObject({
      code: 'OPTION_INVALID',
      message: 'phoneNumberId "12ab": give the numeric phone-number ID from WhatsApp Manager',
    });
    const times = refusalOf(() => checked(apiFlags({ ...template, startDeadline: '2026-11-23T10:00:00+01:00' }), FLAG_FIELD_NAMES));
    expect(times.message).toMatch(/^startDeadline 2026-11-23T10:00:00\+01:00 needs at: a deadline/);
  });

  it('takes maxCost at both edges: an amount typed at the CLI, a number of 0 or more in the JSON, refused alike', () => {
    expect(cliFlags(['--template', 'x', '--max-cost', ' 250 '])).toMatchObject({ maxCost: 250 });
    expect(refusalOf(() => cliFlags(['--template', 'x', '--max-cost', 'ten']))).toMatchObject({
      code: 'OPTION_INVALID',
      message: '--max-cost "ten": give an amount in the rate card\'s currency, e.g. 250 or 99.50',
    });
    for (const maxCost of ['ten', -1]) {
      expect(readCampaignFlags({ template: 'x', maxCost }).problems).toStrictEqual([
        { code: 'OPTION_INVALID', field: 'maxCost', detail: "maxCost: give an amount in the rate card's currency, e.g. 250 or 99.50" },
      ]);
    }
    // A spec made elsewhere is held to the same rule by its check.
    const spec = parseCampaignSpec({ template: { name: 'x', language: 'en' }, maxCost: -1 }, CLI_FIELD_NAMES);
    expect(refusalOf(() => checkCampaignSpec(spec, CLI_FIELD_NAMES, CONTEXT))).toMatchObject({
      code: 'OPTION_INVALID',
      message: "--max-cost -1: give an amount in the rate card's currency, e.g. 250 or 99.50",
    });
  });

  it('refuses a misspelt flag', () => {
    const parsed = campaignFlagsSchema.safeParse({ template: 'x', phoneNumberID: '1' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['phoneNumberID'] });
  });
});
