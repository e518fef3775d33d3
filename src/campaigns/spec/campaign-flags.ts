import { z } from 'zod';
import type { ProblemItem } from '../../errors/problems-error.js';
import { AMOUNT_FORM } from './max-cost.js';
import { SPEC_FORMATS } from './spec-formats.js';
import { MAX_NAME_CHARS } from '../campaign-name.js';
import { OPERATOR_TEXT_PATTERN } from '../../text/operator-text.js';

/** Bounds of the spec's free texts: every one the server reads is bounded, and the document says so. */
const MAX_COLUMN_CHARS = 256;
const MAX_COLUMNS = 100;
/** Bounds a duration's digits: no value parses to 0 or to Infinity. */
const MAX_DURATION_CHARS = 32;
const MAX_WINDOW_CHARS = 100;
/** A value of a set form (a code, an ID, a time): far longer than any such value. */
const MAX_FORMED_CHARS = 64;
/** A text's placeholders are not counted in Meta's 4,096 characters: the whole text is bounded too. */
const MAX_TEXT_CHARS = 16_384;
/** A `where` filter is read at once, whatever its size: bounded as its parser bounds it. */
const MAX_WHERE_CHARS = 4000;
/** Test numbers: a handful of the team's own phones. */
const MAX_TEST_NUMBERS = 10;

const text = z.string();
const flag = z.boolean();

/** At most `max` characters, counted as JSON Schema counts them (code points, not UTF-16 units): the server holds the same bound. */
const upTo = (max: number) =>
  text.refine((value) => codePoints(value) <= max, { message: `Too long: give at most ${max} characters` }).meta({ maxLength: max });

/** A text field's form for the document (the spec's checks refuse the rest with a message of their own), bounded here. */
const formed = (pattern: string, description: string) => upTo(MAX_FORMED_CHARS).optional().meta({ pattern, description });

/** A moment as `at` and its kin take it: the pattern (what parseInstant reads) and RFC 3339 `date-time` (seconds given). */
const instant = (description: string) =>
  upTo(MAX_FORMED_CHARS).optional().meta({ pattern: SPEC_FORMATS.instant, format: 'date-time', description });

function codePoints(value: string): number {
  return Array.from(value).length;
}

/** A column's name in the CSV header; a template's name (Meta allows 512). */
const column = upTo(MAX_COLUMN_CHARS);

/**
 * A campaign as `campaign send`'s long flags give it, camelCased (`--phone-number-id` →
 * `phoneNumberId`, `--at` → `at`; list flags take arrays, `--param name=column` an object):
 * the one edge shape of a campaign. The HTTP API reads its JSON with this schema; the CLI's
 * commander options are this object already (but for the value forms it maps). specOfFlags
 * maps it onto the CampaignSpec, so both reach createCampaign through the same fields and
 * rules. The rules between fields are checkCampaignSpec's; the document states them too
 * (src/api/schemas/spec-rules.ts). A field here is a flag of `campaign send` (its help:
 * CAMPAIGN_FLAG_HELP) and a field of the spec (CLI_FIELD_NAMES names it).
 */
export const campaignFlagsSchema = z.strictObject({
  name: text.optional().meta({
    description:
      'For people, 1 to 100 characters, not only spaces or invisible ones, no control or bidi characters (default: the file name).',
    minLength: 1,
    maxLength: MAX_NAME_CHARS,
    pattern: OPERATOR_TEXT_PATTERN.source,
    not: { pattern: SPEC_FORMATS.blankText },
  }),
  template: upTo(512).optional().meta({ description: 'An approved template; with `language`, and not with `text`.' }),
  language: formed(SPEC_FORMATS.language, "The template's language code, e.g. en_US; only with `template`."),
  text: upTo(MAX_TEXT_CHARS)
    .optional()
    .meta({
      description:
        'A free-form text whose {{column}} placeholders are filled per row; not with `template`, `language` or the template ' +
        'columns (`params`, `param`, `headerTextColumn`, `headerImageColumn`, `buttonUrlColumn`, `clickUrlColumn`). ' +
        'Not empty or only spaces, no ' +
        'control or bidi character, no stray `{{` or `}}`, each placeholder naming a column; at most 4,096 characters (UTF-16 ' +
        'code units, as Meta counts them) outside its placeholders, at most 16,384 with them.',
      pattern: SPEC_FORMATS.text,
      not: { pattern: SPEC_FORMATS.blankText },
    }),
  previewUrl: flag.optional().meta({ description: 'With `text`: WhatsApp shows a preview of its first link (true only with text).' }),
  phoneColumn: column.optional().meta({ description: 'The column of phone numbers (default phone).' }),
  params: z
    .array(column)
    .max(MAX_COLUMNS)
    .optional()
    .meta({ description: 'Positional templates: the columns for {{1}}..{{n}}, in order.' }),
  param: z
    .record(column, column)
    .refine((param) => Object.keys(param).length <= MAX_COLUMNS, { message: `Too many: give at most ${MAX_COLUMNS} variables` })
    .optional()
    .meta({
      description:
        'A template slot (`body.1`, `button.1.coupon_code`, `lto.expiration`, `card.0.header.image`, as the templates list names them) ' +
        'or a variable by its bare name → its column.',
      maxProperties: MAX_COLUMNS,
    }),
  headerTextColumn: column.optional(),
  headerImageColumn: column.optional().meta({ description: 'The column of the https link of an image, video or document header.' }),
  buttonUrlColumn: z
    .array(column)
    .max(MAX_COLUMNS)
    .optional()
    .meta({ description: 'One column per URL button with a variable, in button order.' }),
  trackClicks: flag.optional().meta({
    description:
      "Count clicks on the template's URL button whose link is `PUBLIC_URL/c/{{1}}`: each row's button gets a random token, and " +
      "`serve` redirects it to the row's `clickUrlColumn` (true only with `clickUrlColumn`; needs PUBLIC_URL on the server, " +
      'else 422 CLICK_TRACKING_INVALID).',
  }),
  clickUrlColumn: column.optional().meta({
    description:
      "With trackClicks: the column of each row's destination, an http(s) URL (a row without one is rejected as CLICK_URL_INVALID).",
  }),
  headerFileColumn: column.optional().meta({
    description:
      "The column of a media header's local file: a path relative to the CSV file's folder (uploaded once; not with mediaBy link).",
  }),
  languageColumn: column.optional().meta({
    description: "The column of each row's language (en_US); `language` is the fallback for a language the template lacks.",
  }),
  timezoneColumn: column.optional().meta({ description: "With window: the column of each recipient's IANA zone." }),
  defaultCountry: formed(SPEC_FORMATS.country, 'ISO country (two letters, either case) of numbers written without a country code.'),
  defaultTimezone: formed(
    SPEC_FORMATS.paddedZone,
    "With window: the recipients' IANA time zone (Europe/Berlin) when their number does not tell; a name of that form that " +
      'no zone has is refused (422 TIMEZONE_NOT_FOUND).',
  ),
  fixWhitespace: flag.optional(),
  delimiter: text.optional().meta({ description: '`,` `;` `|` or `tab` (default: detected).', enum: [',', ';', '|', 'tab'] }),
  at: instant('Start then: ISO 8601 with its offset. Not in the past (422 TIME_IN_PAST), at most 366 days ahead (422 TIME_TOO_FAR_AHEAD).'),
  startDeadline: instant(
    'With at: cancel the campaign if it has not started by then (ISO 8601 with offset); after the start (422 TIME_NOT_AFTER_START).',
  ),
  expiresAt: instant('Rows not sent by then expire (ISO 8601 with offset); after the start (422 TIME_NOT_AFTER_START); not with validFor.'),
  validFor: upTo(MAX_DURATION_CHARS).optional().meta({
    pattern: SPEC_FORMATS.duration,
    description: 'Rows expire this long after the start, e.g. 48h (m, h or d); not with expiresAt.',
  }),
  window: upTo(MAX_WINDOW_CHARS)
    .optional()
    .meta({
      pattern: SPEC_FORMATS.hours,
      not: { pattern: SPEC_FORMATS.emptyHours },
      description: "Send only inside these hours of each recipient's day, e.g. 09:00-20:00 (22:00-06:00 spans midnight; not empty).",
    }),
  days: upTo(MAX_WINDOW_CHARS).optional().meta({ pattern: SPEC_FORMATS.days, description: 'With window: the weekdays, e.g. mon-fri.' }),
  priority: text.optional().meta({ description: '`high`, `normal` (default) or `low`.', enum: ['high', 'normal', 'low'] }),
  phoneNumberId: formed(SPEC_FORMATS.phoneNumberId, 'The number to send from (default WHATSAPP_PHONE_NUMBER_ID).'),
  campaign: formed(SPEC_FORMATS.campaignId, 'Continue this campaign with its own file.'),
  allowRepeat: flag.optional(),
  allowUsMarketing: flag.optional(),
  endpoint: text.optional().meta({
    description: '`messages` (default) or `marketing-messages` (MARKETING templates only, not with text).',
    enum: ['messages', 'marketing-messages'],
  }),
  mediaBy: text.optional().meta({
    description:
      '`id` (default): media headers are fetched, checked and uploaded once per number, rows send the ID; `link`: rows send the link.',
    enum: ['id', 'link'],
  }),
  ttl: formed(SPEC_FORMATS.ttl, "With endpoint marketing-messages: the template's time-to-live, 12h to 30d in whole m, h or d."),
  displayTimezone: formed(
    SPEC_FORMATS.zone,
    'The IANA time zone the plan shows times in (Europe/Berlin); a name of that form that no zone has is refused ' +
      '(422 TIMEZONE_NOT_FOUND).',
  ),
  dryRun: flag.optional(),
  audience: formed(SPEC_FORMATS.audienceName, "A stored audience of the number's portfolio to send to, instead of a file."),
  where: upTo(MAX_WHERE_CHARS)
    .optional()
    .meta({
      description:
        'With audience: only the contacts this filter over their attributes chooses (docs/audiences.md); one that does not ' +
        'parse, or names an attribute the audience lacks, is refused (422 AUDIENCE_WHERE_INVALID).',
    }),
  requireConsent: flag.optional(),
  ignoreFrequencyCaps: flag.optional(),
  retryCappedAfter: upTo(MAX_DURATION_CHARS).optional().meta({
    pattern: SPEC_FORMATS.duration,
    description: 'A row Meta failed with 131049 (its marketing cap) is sent again once, this long after (e.g. 24h).',
  }),
  testTo: z
    .array(upTo(MAX_FORMED_CHARS))
    .min(1)
    .max(MAX_TEST_NUMBERS)
    .optional()
    .meta({
      description:
        "Send the first rows' messages to these E.164 numbers only, one row each, as a test; more numbers than rows, or one " +
        'that is not a number, is refused (422 TEST_SEND_INVALID).',
    }),
  maxCost: z.number({ error: AMOUNT_FORM }).min(0, { error: AMOUNT_FORM }).optional().meta({
    description: "Refuse the campaign, before a row is queued, when its estimated cost is above this (the rate card's currency).",
  }),
});

export type CampaignFlags = z.output<typeof campaignFlagsSchema>;

/** The flags that say what a campaign sends and which columns fill it: all `campaign retarget` takes of a campaign. */
export const messageFlagsSchema = campaignFlagsSchema.pick({
  template: true,
  language: true,
  text: true,
  previewUrl: true,
  params: true,
  param: true,
  headerTextColumn: true,
  headerImageColumn: true,
  buttonUrlColumn: true,
  trackClicks: true,
  clickUrlColumn: true,
  // Not headerFileColumn: a retargeted file holds the paths the first campaign resolved, absolute.
  languageColumn: true,
  mediaBy: true,
});

export type MessageFlags = z.output<typeof messageFlagsSchema>;

/**
 * The flags of a JSON caller, with every problem of their shape at once (a misspelt field, a
 * value of the wrong type), each naming its field. The fields that are right are still read
 * (each wrong one left out), so the rest of the spec is checked too; undefined only when the
 * spec is not an object at all.
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
  if (!isPlainObject(input)) return { flags: undefined, problems };
  // Each field is read alone (the object's fields are independent): a wrong one is left out, the others kept.
  const wrong = new Set(parsed.error.issues.map((issue) => issue.path[0]).filter((key) => key !== undefined));
  const right = Object.fromEntries(Object.entries(input).filter(([key]) => key in campaignFlagsSchema.shape && !wrong.has(key)));
  const second = campaignFlagsSchema.safeParse(right);
  return { flags: second.success ? second.data : undefined, problems };
}
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
