import { z } from 'zod';
import { sendSpecOf, type SendSpecOptions } from '../../cli/send-spec.js';
import type { ProblemItem } from '../../errors/problems-error.js';
import type { CampaignSpecInput } from './campaign-spec.js';
import { CLI_FIELD_NAMES, SPEC_FIELDS, type FieldNames, type SpecField } from './field-names.js';

const text = z.string();
const flag = z.boolean();

/**
 * A campaign as `campaign send`'s long flags give it, camelCased (`--phone-number-id` →
 * `phoneNumberId`, `--at` → `at`; list flags take arrays, `--param name=column` an object):
 * the HTTP API's JSON form of a campaign. specOfFlags maps it onto the CampaignSpec, as the
 * CLI maps its flags, so both reach createCampaign through the same fields and rules.
 */
export const campaignFlagsSchema = z
  .strictObject({
    name: text.optional().meta({ description: 'For people, at most 100 characters (default: the file name).' }),
    template: text.optional().meta({ description: 'An approved template; exactly one of `template` and `text`.' }),
    language: text.optional().meta({ description: "The template's language code, e.g. en_US." }),
    text: text.optional().meta({ description: 'A free-form text whose {{column}} placeholders are filled per row.' }),
    previewUrl: flag.optional(),
    phoneColumn: text.optional().meta({ description: 'The column of phone numbers (default phone).' }),
    params: z.array(text).optional().meta({ description: 'Positional templates: the columns for {{1}}..{{n}}, in order.' }),
    param: z.record(text, text).optional().meta({ description: 'A named variable (body, header or button) → its column.' }),
    headerTextColumn: text.optional(),
    headerImageColumn: text.optional().meta({ description: 'The column of the https link of an image, video or document header.' }),
    buttonUrlColumn: z.array(text).optional().meta({ description: 'One column per URL button with a variable, in button order.' }),
    timezoneColumn: text.optional(),
    defaultCountry: text.optional().meta({ description: 'ISO country of numbers written without a country code.' }),
    defaultTimezone: text.optional(),
    fixWhitespace: flag.optional(),
    delimiter: text.optional().meta({ description: '`,` `;` `|` or `tab` (default: detected).' }),
    at: text.optional().meta({ description: 'Start then: ISO 8601 with offset.' }),
    startDeadline: text.optional(),
    expiresAt: text.optional(),
    validFor: text.optional().meta({ description: 'Rows expire this long after the start, e.g. 48h.' }),
    window: text.optional().meta({ description: "Send only inside these hours of each recipient's day, e.g. 09:00-20:00." }),
    days: text.optional().meta({ description: 'With window: the weekdays, e.g. mon-fri.' }),
    priority: text.optional().meta({ description: '`high`, `normal` (default) or `low`.' }),
    phoneNumberId: text.optional(),
    campaign: text.optional().meta({ description: 'Continue this campaign with its own file.' }),
    allowRepeat: flag.optional(),
    allowUsMarketing: flag.optional(),
    endpoint: text.optional().meta({ description: '`messages` (default) or `marketing-messages` (MARKETING templates only).' }),
    ttl: text.optional(),
    displayTimezone: text.optional(),
    dryRun: flag.optional(),
  })
  .meta({ id: 'CampaignFlags' });

export type CampaignFlags = z.output<typeof campaignFlagsSchema>;

/** The spec of a campaign's flags: each flag onto its field, flags not given left out. */
export function specOfFlags(flags: CampaignFlags): CampaignSpecInput {
  return sendSpecOf(specOptionsOfFlags(flags));
}

/** The flags as the send runner's options (the CLI's `send` maps its commander options with this too). */
export function specOptionsOfFlags(flags: CampaignFlags): SendSpecOptions {
  return {
    name: flags.name,
    template: flags.template,
    language: flags.language,
    text: flags.text,
    previewUrl: flags.previewUrl,
    params: flags.params,
    paramColumns: flags.param,
    phoneColumn: flags.phoneColumn ?? 'phone',
    headerTextColumn: flags.headerTextColumn,
    headerMediaColumn: flags.headerImageColumn,
    buttonUrlColumns: flags.buttonUrlColumn,
    defaultCountry: flags.defaultCountry,
    fixWhitespace: flags.fixWhitespace,
    delimiter: flags.delimiter,
    phoneNumberId: flags.phoneNumberId,
    campaignId: flags.campaign,
    dryRun: flags.dryRun,
    allowRepeat: flags.allowRepeat,
    allowUsMarketing: flags.allowUsMarketing,
    endpoint: flags.endpoint,
    ttl: flags.ttl,
    priority: flags.priority,
    window: flags.window,
    days: flags.days,
    timezoneColumn: flags.timezoneColumn,
    defaultTimezone: flags.defaultTimezone,
    schedule: { at: flags.at, startDeadline: flags.startDeadline, expiresAt: flags.expiresAt, validFor: flags.validFor },
    displayTimezone: flags.displayTimezone,
  };
}

/** The HTTP API names a field as its flag, camelCased: `--phone-number-id` → `phoneNumberId`. */
export const FLAG_FIELD_NAMES: FieldNames = Object.fromEntries(
  SPEC_FIELDS.map((field: SpecField) => [
    field,
    CLI_FIELD_NAMES[field].replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
  ]),
) as Record<SpecField, string>;

/**
 * The flags of a JSON caller, with every problem of their shape at once (a misspelt field, a
 * value of the wrong type), each naming its field. When only unknown fields are wrong, the
 * others are still read, so the rest of the spec is checked too.
 */
export function readCampaignFlags(input: unknown): { flags: CampaignFlags | undefined; problems: ProblemItem[] } {
  const parsed = campaignFlagsSchema.safeParse(input);
  if (parsed.success) return { flags: parsed.data, problems: [] };
  const problems = parsed.error.issues.flatMap((issue): ProblemItem[] => {
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({
        code: 'OPTION_INVALID',
        field: key,
        detail: `${key}: no such field of a campaign; check the spelling (fields: ${Object.keys(campaignFlagsSchema.shape).join(', ')})`,
      }));
    const field = issue.path.map(String).join('.');
    const where = field === '' ? 'the campaign spec' : field;
    return [
      { code: 'OPTION_INVALID', ...(field === '' ? {} : { field }), detail: `${where}: ${issue.message.replace(/^Invalid input: /, '')}` },
    ];
  });
  if (parsed.error.issues.some((issue) => issue.code !== 'unrecognized_keys') || !isPlainObject(input))
    return { flags: undefined, problems };
  const known = Object.fromEntries(Object.entries(input).filter(([key]) => key in campaignFlagsSchema.shape));
  const second = campaignFlagsSchema.safeParse(known);
  return { flags: second.success ? second.data : undefined, problems };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
