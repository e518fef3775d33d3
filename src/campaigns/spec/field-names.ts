/**
 * The fields of a campaign spec, by their path in its JSON form. A check names a field
 * through a FieldNames map, never by a literal, so one rule says `--at` to an operator at the
 * command line and `at` to a caller of the HTTP API. CLI_FIELD_NAMES is the one table: the
 * API's names are its flags camelCased.
 */
export const SPEC_FIELDS = [
  'name',
  'template.name',
  'template.language',
  'text.body',
  'text.previewUrl',
  'csv.phoneColumn',
  'csv.params',
  'csv.paramColumns',
  'csv.headerTextColumn',
  'csv.headerMediaColumn',
  'csv.buttonUrlColumns',
  'csv.clickUrlColumn',
  'csv.headerFileColumn',
  'csv.languageColumn',
  'csv.timezoneColumn',
  'csv.defaultCountry',
  'csv.defaultTimezone',
  'csv.fixWhitespace',
  'csv.delimiter',
  'schedule.at',
  'schedule.startDeadline',
  'schedule.expiresAt',
  'schedule.validFor',
  'window.hours',
  'window.days',
  'priority',
  'phoneNumberId',
  'campaignId',
  'allowRepeat',
  'allowUsMarketing',
  'endpoint',
  'mediaBy',
  'ttl',
  'displayTimezone',
  'dryRun',
  'maxCost',
  'audience.name',
  'audience.where',
  'requireConsent',
  'ignoreFrequencyCaps',
  'retryCappedAfter',
  'testTo',
  'trackClicks',
] as const;

export type SpecField = (typeof SPEC_FIELDS)[number];

/** What each field is called where the spec came from. */
export type FieldNames = Readonly<Record<SpecField, string>>;

/** The spec itself, as CampaignSpec nests it: a field is named by its path (`schedule.at`). */
export const JSON_FIELD_NAMES: FieldNames = Object.fromEntries(SPEC_FIELDS.map((field) => [field, field])) as Record<SpecField, string>;

/** `campaign send`: a field is named by the flag that sets it. */
export const CLI_FIELD_NAMES: FieldNames = {
  name: '--name',
  'template.name': '--template',
  'template.language': '--language',
  'text.body': '--text',
  'text.previewUrl': '--preview-url',
  'csv.phoneColumn': '--phone-column',
  'csv.params': '--params',
  'csv.paramColumns': '--param',
  'csv.headerTextColumn': '--header-text-column',
  'csv.headerMediaColumn': '--header-image-column',
  'csv.buttonUrlColumns': '--button-url-column',
  'csv.clickUrlColumn': '--click-url-column',
  'csv.headerFileColumn': '--header-file-column',
  'csv.languageColumn': '--language-column',
  'csv.timezoneColumn': '--timezone-column',
  'csv.defaultCountry': '--default-country',
  'csv.defaultTimezone': '--default-timezone',
  'csv.fixWhitespace': '--fix-whitespace',
  'csv.delimiter': '--delimiter',
  'schedule.at': '--at',
  'schedule.startDeadline': '--start-deadline',
  'schedule.expiresAt': '--expires-at',
  'schedule.validFor': '--valid-for',
  'window.hours': '--window',
  'window.days': '--days',
  priority: '--priority',
  phoneNumberId: '--phone-number-id',
  campaignId: '--campaign',
  allowRepeat: '--allow-repeat',
  allowUsMarketing: '--allow-us-marketing',
  endpoint: '--endpoint',
  mediaBy: '--media-by',
  ttl: '--ttl',
  displayTimezone: '--display-timezone',
  dryRun: '--dry-run',
  maxCost: '--max-cost',
  'audience.name': '--audience',
  'audience.where': '--where',
  requireConsent: '--require-consent',
  ignoreFrequencyCaps: '--ignore-frequency-caps',
  retryCappedAfter: '--retry-capped-after',
  testTo: '--test-to',
  trackClicks: '--track-clicks',
};

/**
 * The HTTP API's flat JSON form (CampaignFlags): a field is named as its flag, camelCased
 * (`--phone-number-id` → `phoneNumberId`, `--campaign` → `campaign`).
 */
export const FLAG_FIELD_NAMES: FieldNames = Object.fromEntries(
  SPEC_FIELDS.map((field) => [field, CLI_FIELD_NAMES[field].replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]),
) as Record<SpecField, string>;
