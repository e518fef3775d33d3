import type { CampaignSpecInput } from '../campaigns/spec/campaign-spec.js';
import type { ColumnOptions } from '../campaigns/send-plan.js';
import type { ScheduleOptions } from '../campaigns/spec/time-options.js';

/** `campaign send`'s options that make its campaign spec, as the command line gave them. */
export interface SendSpecOptions extends ColumnOptions {
  /** `--name`: the campaign's name for people (default: the file's name). */
  name?: string | undefined;
  /** An approved template and its language, or `text`: exactly one of the two. */
  template?: string | undefined;
  language?: string | undefined;
  /** `--text "Hi {{name}}…"`: a free-form text whose placeholders name columns (only inside 24-hour windows). */
  text?: string | undefined;
  /** `--preview-url` (with --text): a preview of the first link is shown. */
  previewUrl?: boolean | undefined;
  phoneColumn: string;
  phoneNumberId?: string | undefined;
  campaignId?: string | undefined;
  delimiter?: string | undefined;
  defaultCountry?: string | undefined;
  fixWhitespace?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** `--allow-repeat`: send even what this number already sent to the recipient within DUPLICATE_WINDOW_HOURS. */
  allowRepeat?: boolean | undefined;
  /** `--allow-us-marketing`: send a MARKETING template to US numbers too (skipped as MARKETING_US_PAUSED otherwise). */
  allowUsMarketing?: boolean | undefined;
  /** `--endpoint messages|marketing-messages`: the Cloud API path each row is posted to. */
  endpoint?: string | undefined;
  /** `--ttl 36h` (with --endpoint marketing-messages): the template's time-to-live. */
  ttl?: string | undefined;
  /** `--priority high|normal|low` (default normal). */
  priority?: string | undefined;
  /** `--window 09:00-20:00` in each recipient's local time, `--days mon-fri`, `--timezone-column COL`. */
  window?: string | undefined;
  days?: string | undefined;
  timezoneColumn?: string | undefined;
  /** `--default-timezone ZONE`: the zone of rows whose number gives none, or zones that never share an open hour. */
  defaultTimezone?: string | undefined;
  /** `--at`, `--start-deadline`, `--expires-at`, `--valid-for`, as given. */
  schedule?: ScheduleOptions | undefined;
  /** `--display-timezone ZONE`: where the plan's times are shown. */
  displayTimezone?: string | undefined;
}

/**
 * The campaign spec of `campaign send`'s options: each flag mapped onto its field (see
 * CLI_FIELD_NAMES), options not given left out, as a JSON caller would leave them out.
 */
export function sendSpecOf(options: SendSpecOptions): CampaignSpecInput {
  return withoutEmpty({
    name: options.name,
    template: { name: options.template, language: options.language },
    text: { body: options.text, previewUrl: options.previewUrl },
    csv: {
      phoneColumn: options.phoneColumn,
      params: options.params,
      paramColumns: options.paramColumns,
      headerTextColumn: options.headerTextColumn,
      headerMediaColumn: options.headerMediaColumn,
      buttonUrlColumns: options.buttonUrlColumns,
      timezoneColumn: options.timezoneColumn,
      defaultCountry: options.defaultCountry,
      defaultTimezone: options.defaultTimezone,
      fixWhitespace: options.fixWhitespace,
      delimiter: options.delimiter,
    },
    schedule: { ...options.schedule },
    window: { hours: options.window, days: options.days },
    priority: options.priority,
    phoneNumberId: options.phoneNumberId,
    campaignId: options.campaignId,
    allowRepeat: options.allowRepeat,
    allowUsMarketing: options.allowUsMarketing,
    endpoint: options.endpoint,
    ttl: options.ttl,
    displayTimezone: options.displayTimezone,
    dryRun: options.dryRun,
  }) as CampaignSpecInput;
}

/** `value` without undefined fields and without objects that hold nothing (commander's `--param` default is `{}`). */
function withoutEmpty(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const inner = isPlainObject(field) ? withoutEmpty(field) : field;
    if (inner !== undefined) kept[key] = inner;
  }
  return Object.keys(kept).length === 0 ? undefined : kept;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
