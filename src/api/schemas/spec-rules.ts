/**
 * The rules between a campaign's fields that JSON Schema states simply, for the OpenAPI
 * document: checkCampaignSpec (checkMessage, checkEndpoint, checkTtl, parseSchedule,
 * checkWindow) holds them and gives its own message; these say the same to a generated client.
 * A unit test holds each to those checks (test/unit/openapi-constraints.test.ts).
 */

/** The columns that fill a template's variables: a text names its columns in its own placeholders. */
const TEMPLATE_COLUMNS = [
  'params',
  'headerTextColumn',
  'headerImageColumn',
  'buttonUrlColumn',
  'clickUrlColumn',
  'headerFileColumn',
  'languageColumn',
] as const;

/**
 * What to send: a template with its language, or a text, exactly one. A template takes no
 * `previewUrl: true`; a text takes no template column (`param` may be empty) nor `trackClicks`, and goes
 * through `/messages` only when the fields include `endpoint`.
 */
export function messageChoice(options: { endpoint: boolean }): Record<string, unknown> {
  const absent = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, false]));
  return {
    oneOf: [
      {
        title: 'A template',
        required: ['template'],
        // Its language, or a language per row (then `language` is the fallback).
        anyOf: [{ required: ['language'] }, { required: ['languageColumn'] }],
        properties: { text: false, previewUrl: { const: false } },
      },
      {
        title: 'A text',
        required: ['text'],
        properties: {
          ...absent(['template', 'language', ...TEMPLATE_COLUMNS]),
          param: { maxProperties: 0 },
          // A text has no button whose clicks could be counted.
          trackClicks: { const: false },
          ...(options.endpoint ? { endpoint: { const: 'messages' } } : {}),
        },
      },
    ],
  };
}

/** A tracked link needs each row's destination, and a destination column means nothing without tracking (dependentSchemas). */
export const CLICK_RULES: Record<string, unknown> = {
  trackClicks: { anyOf: [{ properties: { trackClicks: { const: false } } }, { required: ['clickUrlColumn'] }] },
  clickUrlColumn: { required: ['trackClicks'], properties: { trackClicks: { const: true } } },
};

/** The campaign spec's rules between fields: the message, and the fields that need another. */
export const SPEC_RULES: Record<string, unknown> = {
  ...messageChoice({ endpoint: true }),
  dependentRequired: {
    // A deadline cancels a scheduled campaign that has not started: without `at` it starts at once.
    startDeadline: ['at'],
    // Days, a zone column or a default zone without the hours would do nothing.
    days: ['window'],
    timezoneColumn: ['window'],
    defaultTimezone: ['window'],
  },
  dependentSchemas: {
    // Meta takes a time-to-live only through the Marketing Messages API.
    ttl: { required: ['endpoint'], properties: { endpoint: { const: 'marketing-messages' } } },
    // A local file has no link to send: it is uploaded, and fills the media header alone.
    headerFileColumn: { properties: { mediaBy: { const: 'id' } }, not: { required: ['headerImageColumn'] } },
    ...CLICK_RULES,
    // A test sends real messages, now, in a new campaign of its own.
    testTo: { properties: { dryRun: { const: false } }, not: { anyOf: [{ required: ['campaign'] }, { required: ['at'] }] } },
  },
  // Both say when rows expire.
  not: { required: ['expiresAt', 'validFor'] },
};
