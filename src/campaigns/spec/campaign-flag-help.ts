import type { CampaignFlags } from './campaign-flags.js';

/** How `campaign send` declares a campaign's flag: the name of its value (none: a switch), its help, the default --help shows. */
export interface FlagHelp {
  value?: string;
  help: string;
  default?: string;
}

const MAX_COST_HELP =
  'refuse the campaign (COST_ABOVE_MAX, nothing queued) when its estimated cost by the rate card (RATE_CARD_FILE) is ' +
  "above this amount in the card's currency, or cannot be estimated; the file is read twice";

/**
 * Every field of CampaignFlags as a flag of `campaign send` (`phoneNumberId` is
 * `--phone-number-id`), in the order --help lists them. Its type asks for every field: a new
 * field of the schema is a flag of `send` once it has its help here, and of no edge else.
 */
export const CAMPAIGN_FLAG_HELP: { readonly [Field in keyof CampaignFlags]-?: FlagHelp } = {
  name: {
    value: '<text>',
    help:
      "the campaign's name, shown beside its ID (at most 100 characters; default: the file's name without .csv). " +
      '--campaign keeps the name it was created with',
  },
  template: { value: '<name>', help: 'approved template name (with --language; or use --text)' },
  language: { value: '<code>', help: 'template language code, e.g. en_US' },
  text: {
    value: '<body>',
    help:
      'send this free-form text instead of a template; {{column}} is filled from that CSV column. Only recipients who ' +
      'wrote to the number in the last 24 hours get it (others: WINDOW_CLOSED); at most 4,096 characters',
  },
  previewUrl: { help: 'with --text: show a preview of the first http(s) link in the text' },
  params: { value: '<columns>', help: 'positional templates: columns for {{1}}..{{n}}, in order, comma-separated' },
  param: {
    value: '<slot=column>',
    help:
      'fill template slot <slot> from <column> (repeatable): body.1, body.first_name, header.image, header.location, ' +
      'button.0.url, button.1.coupon_code, button.2.payload, button.0.flow_token, lto.expiration, card.0.header.image… ' +
      "(`campaign templates list` shows each template's slots); a bare variable name (first_name) is a body variable; " +
      'named templates match same-named columns by default',
  },
  phoneColumn: { value: '<column>', help: 'column holding the recipient number', default: 'phone' },
  headerTextColumn: { value: '<column>', help: 'column for the text header variable' },
  headerImageColumn: { value: '<column>', help: 'column holding the https link of a media (image/video/document) header' },
  buttonUrlColumn: { value: '<columns>', help: 'columns for URL-button variables, in button order, comma-separated' },
  trackClicks: {
    help:
      "count clicks on the template's URL button whose link is PUBLIC_URL/c/{{1}}: each row gets a random token there and " +
      "`serve` redirects it to the row's --click-url-column (clicked_at in the report; retarget --status clicked|not-clicked)",
  },
  clickUrlColumn: {
    value: '<column>',
    help: "with --track-clicks: column holding each row's destination, an http(s) URL (else the row is rejected as CLICK_URL_INVALID)",
  },
  headerFileColumn: {
    value: '<column>',
    help: "column holding a media header's local file, a path relative to the CSV file's folder (uploaded once per number)",
  },
  languageColumn: {
    value: '<column>',
    help:
      "column holding each row's language (en_US, pt_BR): the template's translation in it is sent; --language is the " +
      'fallback for a language the template lacks (without one, such rows are skipped as TEMPLATE_LANGUAGE_MISSING)',
  },
  mediaBy: {
    value: '<how>',
    help:
      'id (default): each distinct media header is fetched, checked and uploaded once per number, and rows send its media ' +
      'ID; link: rows send the link and Meta fetches it for every message',
  },
  defaultCountry: { value: '<CC>', help: 'ISO country for numbers written without a country code, e.g. DE' },
  fixWhitespace: { help: 'collapse line breaks, tabs and runs of spaces in values instead of rejecting the row' },
  delimiter: { value: '<char>', help: 'field delimiter: , ; | or tab (default: detected from the header)' },
  phoneNumberId: { value: '<id>', help: 'send from this phone-number ID (default WHATSAPP_PHONE_NUMBER_ID)' },
  campaign: {
    value: '<id>',
    help:
      'continue campaign ID with its own file: the file read again (an interrupted ingest finished), fixed (rows rejected ' +
      'or skipped before are checked again) or with rows added after its last one. Rows are matched by row number: a row the ' +
      'campaign queued or sent must name the same recipient (else CAMPAIGN_FILE_MISMATCH, nothing written); none is sent twice',
  },
  allowRepeat: {
    help: 'send even messages this number already sent to the recipient within DUPLICATE_WINDOW_HOURS (skipped as ALREADY_SENT otherwise)',
  },
  allowUsMarketing: {
    help:
      'send a MARKETING template to US numbers too, once Meta lifts its pause (skipped as MARKETING_US_PAUSED ' +
      'otherwise: Meta fails them with 131049)',
  },
  endpoint: {
    value: '<name>',
    help:
      "messages (default) or marketing-messages: post each row to Meta's Marketing Messages API (/marketing_messages), " +
      'MARKETING templates only',
  },
  ttl: {
    value: '<duration>',
    help:
      'with --endpoint marketing-messages: how long Meta keeps trying to deliver each message, 12h to 30d (e.g. 36h, 7d); ' +
      'Meta keeps it on the template, so it is set on the template for all its sends',
  },
  priority: {
    value: '<level>',
    help: 'high, normal or low: a higher campaign is fed to the workers first; campaigns of one level share the number (default normal)',
  },
  at: {
    value: '<time>',
    help: 'start sending then (ISO 8601 with offset, e.g. 2026-12-01T09:00:00+01:00); the file is read and checked now',
  },
  startDeadline: { value: '<time>', help: 'if it has not started by then (no worker ran), cancel it instead (ISO 8601 with offset)' },
  expiresAt: { value: '<time>', help: 'rows not sent by then become expired and are never sent (ISO 8601 with offset)' },
  validFor: { value: '<duration>', help: 'rows expire this long after the start, e.g. 6h, 90m, 2d (instead of --expires-at)' },
  window: {
    value: '<HH:MM-HH:MM>',
    help: "send only inside these hours of each recipient's local day, e.g. 09:00-20:00 (the zone comes from the number)",
  },
  days: { value: '<days>', help: 'with --window: the local weekdays to send on, e.g. mon-fri or mon,wed,sat (default every day)' },
  timezoneColumn: {
    value: '<column>',
    help: "with --window: column with each recipient's IANA time zone, e.g. Europe/Berlin (an empty cell: the number's)",
  },
  defaultTimezone: {
    value: '<zone>',
    help:
      "with --window: the IANA zone of rows whose number gives none, or whose number's zones never share an " +
      'open hour of the window (else skipped as WINDOW_NEVER_OPEN), e.g. America/New_York',
  },
  displayTimezone: {
    value: '<zone>',
    help: "show the plan's times in this IANA zone, e.g. Europe/Berlin (default: the offset typed in --at, else this machine's zone)",
  },
  maxCost: { value: '<amount>', help: MAX_COST_HELP },
  audience: {
    value: '<name>',
    help: "send to this stored audience of the number's portfolio instead of a file (`campaign audiences list`)",
  },
  where: {
    value: '<expr>',
    help:
      'with --audience: only the contacts this filter chooses, e.g. ' +
      '\'country = "DE" and tier in ("gold","silver")\' (docs/audiences.md)',
  },
  requireConsent: {
    help: 'skip MARKETING rows whose recipient has no opt-in on record (NO_CONSENT; `campaign consent show PHONE`)',
  },
  ignoreFrequencyCaps: {
    help: "FREQUENCY_CAPS do not hold for this campaign (a recall notice); recorded in the campaign's history",
  },
  retryCappedAfter: {
    value: '<duration>',
    help:
      'a row Meta failed with 131049 (its marketing cap) is sent again once, this long after (e.g. 24h), ' +
      "within the campaign's expiry and window",
  },
  testTo: {
    value: '<numbers>',
    help:
      "send the first rows' messages to these numbers only (one row each, comma-separated E.164), as a test: " +
      'no duplicate window, no caps',
  },
  dryRun: { help: 'check everything and print the summary; create no campaign and no job' },
};
