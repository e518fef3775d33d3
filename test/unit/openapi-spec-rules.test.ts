import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { getCountries } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { checkCampaignSpec } from '../../src/campaigns/spec/check-spec.js';
import { FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { specOfFlags } from '../../src/campaigns/spec/spec-of-flags.js';
import { checkTtl } from '../../src/campaigns/spec/send-endpoint.js';
import { checkCampaignName } from '../../src/campaigns/campaign-name.js';
import { SPEC_FORMATS } from '../../src/campaigns/spec/spec-formats.js';
import { parseCampaignSpec } from '../../src/campaigns/spec/parse-spec.js';
import { checkDisplayTimezone } from '../../src/campaigns/spec/display-zone.js';
import { parseDuration, parseInstant } from '../../src/campaigns/spec/time-options.js';
import { parseTextBody } from '../../src/campaigns/text-plan.js';
import { canonicalZone } from '../../src/phone/recipient-zones.js';
import { accepts } from '../support/accepts.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const document = openApiDocument(API_ROUTES, { version: 'test' });
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addSchema(document, 'openapi');
const specFits = ajv.getSchema('openapi#/components/schemas/CampaignSpec')!;
const audienceSpecFits = ajv.getSchema('openapi#/components/schemas/AudienceCampaignSpec')!;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;

/** Whether the server takes these flags as a campaign's spec (everything but the file and the template's own rules). */
function serverTakes(flags: Record<string, unknown>): boolean {
  const spec = () => parseCampaignSpec(specOfFlags(flags), FLAG_FIELD_NAMES);
  return accepts(() => checkCampaignSpec(spec(), FLAG_FIELD_NAMES, { now: NOW, defaultPhoneNumberId: '1' }));
}

/** Every combination of the options' values (undefined: the field left out). */
function combinations(options: Record<string, readonly unknown[]>): Record<string, unknown>[] {
  return Object.entries(options).reduce<Record<string, unknown>[]>(
    (all, [name, values]) =>
      all.flatMap((partial) => values.map((value) => (value === undefined ? partial : { ...partial, [name]: value }))),
    [{}],
  );
}

/** The patterns of the document, each held to the parser it states: what one takes, the other takes. */
describe('the spec patterns of the OpenAPI document are the server’s own rules', () => {
  it('instant: every date, time and offset as parseInstant reads it (30 February, 24:00, +14:01 refused)', () => {
    const instant = new RegExp(SPEC_FORMATS.instant);
    const values: string[] = [];
    for (const year of ['2023', '2024', '1900', '2000', '0000'])
      for (const month of ['00', '01', '02', '04', '12', '13', '1'])
        for (const day of ['00', '01', '28', '29', '30', '31', '32']) values.push(`${year}-${month}-${day}T09:00Z`);
    for (const time of ['00:00', '23:59', '24:00', '12:60', '9:00', '12:00:59', '12:00:60', '12:00:30.1', '12:00:30.1234'])
      for (const offset of ['Z', '+14:00', '+14:01', '-13:59', '+05:60', '+00:00', 'z', '+0100', ''])
        values.push(`2026-12-01T${time}${offset}`);
    for (const value of values) expect(instant.test(value), value).toBe(accepts(() => parseInstant('at', value)));
  });

  it('duration: a number of m, h or d above zero', () => {
    const duration = new RegExp(SPEC_FORMATS.duration);
    for (const value of ['90m', '6h', '2d', '1.5h', '0m', '0.0h', '0.5d', '00h', '.5h', '1.h', '10s', '6 h', '1e3m', ''])
      expect(duration.test(value), value).toBe(accepts(() => parseDuration('validFor', value)));
  });

  it('ttl: 12h to 30d, whole minutes, hours or days', () => {
    const ttl = new RegExp(SPEC_FORMATS.ttl);
    const names = FLAG_FIELD_NAMES;
    const values = ['36h', '11h', '12h', '30d', '31d', '720m', '719m', '43200m', '43201m', '721h', '0012h', '1.5d', '0d', '12H'];
    for (let n = 0; n <= 50_000; n += 7) values.push(`${n}m`, `${n % 800}h`, `${n % 40}d`);
    for (const value of values) expect(ttl.test(value), value).toBe(accepts(() => checkTtl(value, 'marketing-messages', names)));
  });

  it('window: H:MM-HH:MM on a 24-hour clock, 24:00 as an end, never empty', () => {
    const hours = new RegExp(SPEC_FORMATS.hours);
    const empty = new RegExp(SPEC_FORMATS.emptyHours);
    const clocks = ['0:00', '00:00', '9:00', '09:00', '09:30', '9:30', '12:00', '23:59', '24:00', '24:01', '25:00', '12:60', '123:00'];
    for (const start of clocks)
      for (const end of clocks)
        for (const value of [`${start}-${end}`, ` ${start} - ${end} `]) {
          const fits = hours.test(value) && !empty.test(value);
          expect(fits, value).toBe(accepts(() => parseSendWindow(value, undefined, CLI_FIELD_NAMES)));
        }
  });

  it('days: weekdays by their first three letters, in ranges and lists', () => {
    const days = new RegExp(SPEC_FORMATS.days);
    const parts = ['mon', 'FRI', 'Monday', 'fr', 'frİ', 'xyz', ' sat ', 'mon1', ''];
    for (const a of parts)
      for (const b of parts)
        for (const value of [a, `${a}-${b}`, `${a},${b}`, `${a}--${b}`, `${a}-${b}-${a}`])
          expect(days.test(value), JSON.stringify(value)).toBe(accepts(() => parseSendWindow('00:00-24:00', value, CLI_FIELD_NAMES)));
  });

  it('defaultCountry: the ISO codes with a numbering plan, in either case', () => {
    const country = new RegExp(SPEC_FORMATS.country);
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const known = new Set(getCountries() as string[]);
    for (const a of letters)
      for (const b of letters)
        for (const code of [`${a}${b}`, `${a}${b.toLowerCase()}`]) expect(country.test(code), code).toBe(known.has(code.toUpperCase()));
    expect(serverTakes({ template: 't', language: 'en', defaultCountry: 'de' })).toBe(true);
    expect(serverTakes({ template: 't', language: 'en', defaultCountry: 'XX' })).toBe(false);
  });

  it('zones: every zone the host knows has the form; a value without it is refused for its form (OPTION_INVALID)', () => {
    const zone = new RegExp(SPEC_FORMATS.zone);
    const padded = new RegExp(SPEC_FORMATS.paddedZone);
    for (const name of Intl.supportedValuesOf('timeZone')) {
      expect(zone.test(name), name).toBe(true);
      expect(padded.test(` ${name} `), name).toBe(true);
    }
    for (const value of ['+01:00', ' Europe/Berlin', 'Europe/Berlin time', '', '1Europe'])
      expect(zone.test(value) || accepts(() => checkDisplayTimezone(value, CLI_FIELD_NAMES.displayTimezone)), value).toBe(false);
    // Of the form, and no zone: only the tz database says so (TIMEZONE_NOT_FOUND).
    for (const value of ['Europe/Berlinn', 'Z']) {
      expect(zone.test(value), value).toBe(true);
      expect(canonicalZone(value), value).toBeUndefined();
    }
  });

  it('text: placeholders that name a column, no stray braces, no control or bidi character, not blank', () => {
    const text = new RegExp(SPEC_FORMATS.text, 'u');
    const blank = new RegExp(SPEC_FORMATS.blankText, 'u');
    // Every text of up to 5 of these characters (the vertical tab and form feed, which the check trims at the ends, aside).
    const alphabet = ['{', '}', 'a', ' ', '\n', '\u0001', '\u202e', '😀', '\u200b'];
    let texts = [''];
    for (let length = 1; length <= 5; length++) {
      texts = texts.flatMap((prefix) => alphabet.map((character) => prefix + character));
      for (const value of texts)
        expect(text.test(value) && !blank.test(value), JSON.stringify(value)).toBe(accepts(() => parseTextBody(value, 'text')));
    }
  });
});

describe('the name of a campaign', () => {
  it('the document takes a name only when checkCampaignName does, and refuses every one it refuses but for ends it trims', () => {
    const nameFits = ajv.compile({ $ref: 'openapi#/components/schemas/CampaignSpec/properties/name' });
    const alphabet = ['a', ' ', '\u200b', '\u3164', '\n', '\u001b', '\u202e', '😀', 'é'];
    let names = [''];
    for (let length = 1; length <= 4; length++) {
      names = names.flatMap((prefix) => alphabet.map((character) => prefix + character));
      for (const value of names) {
        const serverTakes = accepts(() => checkCampaignName(value, 'name'));
        // What the document takes, the server takes. The server trims the ends first, so with spaces or a line break
        // there the document may be stricter (a line break at an end); elsewhere the two agree exactly.
        if (nameFits(value)) expect(serverTakes, JSON.stringify(value)).toBe(true);
        if (value === value.trim()) expect(nameFits(value), JSON.stringify(value)).toBe(serverTakes);
      }
    }
  });
});

/** The rules between fields (SPEC_RULES), held to checkCampaignSpec: the document takes a spec exactly when the server does. */
describe('the rules between a spec’s fields', () => {
  const fits = (flags: Record<string, unknown>) => specFits(flags) === true;

  it('the message: a template with its language, or a text with no template column; previewUrl and ttl where they apply', () => {
    const specs = combinations({
      template: [undefined, 'order_update'],
      language: [undefined, 'en_US'],
      text: [undefined, 'Hi {{name}}'],
      previewUrl: [undefined, true, false],
      params: [undefined, ['name']],
      param: [undefined, {}, { name: 'name' }],
      headerImageColumn: [undefined, 'image'],
      endpoint: [undefined, 'messages', 'marketing-messages'],
      ttl: [undefined, '36h'],
    });
    expect(specs).toHaveLength(1728);
    for (const flags of specs) expect(fits(flags), JSON.stringify(flags)).toBe(serverTakes(flags));
  });

  it('the fields that need another: startDeadline at, the window’s days and zones window; expiresAt or validFor', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const specs = combinations({
      at: [undefined, iso(NOW + 2 * HOUR)],
      startDeadline: [undefined, iso(NOW + 3 * HOUR)],
      expiresAt: [undefined, iso(NOW + 4 * HOUR)],
      validFor: [undefined, '48h'],
      window: [undefined, '09:00-20:00'],
      days: [undefined, 'mon-fri'],
      timezoneColumn: [undefined, 'zone'],
      defaultTimezone: [undefined, 'Europe/Berlin'],
    });
    for (const spec of specs) {
      const flags = { template: 'order_update', language: 'en_US', ...spec };
      expect(fits(flags), JSON.stringify(flags)).toBe(serverTakes(flags));
    }
  });

  it('a test send: not with dryRun, campaign or at; a campaign to an audience (its path names it) with or without where', () => {
    const iso = new Date(NOW + 2 * HOUR).toISOString();
    const specs = combinations({ testTo: [undefined, ['+4915112345678']], dryRun: [undefined, true, false], at: [undefined, iso] });
    for (const spec of specs) {
      for (const campaign of [undefined, 'winter-sale']) {
        const flags = { template: 'order_update', language: 'en_US', ...spec, ...(campaign === undefined ? {} : { campaign }) };
        expect(fits(flags), JSON.stringify(flags)).toBe(serverTakes(flags));
      }
      for (const where of [undefined, 'tier = "gold"']) {
        const flags = { template: 'order_update', language: 'en_US', ...spec, ...(where === undefined ? {} : { where }) };
        const fitsAudience = audienceSpecFits(flags) === true;
        expect(fitsAudience, JSON.stringify(flags)).toBe(serverTakes({ ...flags, audience: 'weekly' }));
      }
    }
    // The file's forms take no audience: it has a route of its own.
    expect(fits({ template: 'order_update', language: 'en_US', audience: 'weekly' })).toBe(false);
  });

  it('click tracking: trackClicks with its clickUrlColumn, neither without the other, not with a text', () => {
    const specs = combinations({
      trackClicks: [undefined, true, false],
      clickUrlColumn: [undefined, 'link'],
      message: [{ template: 'order_update', language: 'en_US' }, { text: 'Hi {{name}}' }],
    });
    for (const { message, ...spec } of specs) {
      const flags = { ...(message as Record<string, unknown>), ...spec };
      expect(fits(flags), JSON.stringify(flags)).toBe(serverTakes(flags));
    }
    expect(fits({ template: 'order_update', language: 'en_US', trackClicks: true, clickUrlColumn: 'link' })).toBe(true);
  });

  it('reads specs the same way at the CLI: parseCampaignSpec of the flags’ spec takes what the document takes', () => {
    const flags = {
      template: 'order_update',
      language: 'en_US',
      window: '22:00-06:00',
      days: 'fri-mon',
      ttl: '7d',
      endpoint: 'marketing-messages',
    };
    expect(fits(flags)).toBe(true);
    expect(accepts(() => parseCampaignSpec(specOfFlags(flags), FLAG_FIELD_NAMES))).toBe(true);
  });
});
