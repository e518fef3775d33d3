/**
 * Every stable error code the project raises, with the sentence an operator reads.
 * Decisions branch on these codes, never on message text; docs/errors.md lists them all
 * (a unit test keeps the two in step).
 */
export const ERROR_CODES = {
  CONFIG_INVALID: 'A setting in the environment is missing or malformed.',
  BUILD_MISSING: "The checkout is not built: dist/ (the compiled CLI or the pages' scripts) is missing; run `npm run build`.",
  OPTION_INVALID: 'A command-line option has a value the command cannot use.',
  TEXT_CONTROL_CHARACTER:
    'A free text (a name, a pause reason) holds a control character, a line break or a bidi override, which operators would see.',
  ARGUMENT_INVALID:
    'The command line does not parse: an unknown command or option, a missing argument or required option, or a value the option refuses.',
  TIME_INVALID: 'A time option names a moment that does not exist (30 February, 24:00, an offset beyond ±14:00).',
  TIME_IN_PAST: "A start (`--at`, a reschedule) is in the past by more than a minute of this host's clock.",
  TIME_TOO_FAR_AHEAD: "A start is more than 366 days ahead of this host's clock: a typo in the year?",
  TIME_NOT_AFTER_START: 'A start deadline or an expiry is not after the start (the given one, or now): nothing would be sent.',
  TIMEZONE_NOT_FOUND: "A time zone has the form of an IANA name (Area/City) but no zone of this host's time-zone database has it.",
  TEMPLATE_NOT_MARKETING:
    'The Marketing Messages API (`--endpoint marketing-messages`) was asked for a template whose category is not MARKETING.',
  PHONE_NOT_IN_PLAN:
    "A number has E.164's form (+ and 7 to 15 digits) but is not valid in its country's numbering plan (or no country has its code).",
  REDIS_UNAVAILABLE: 'Redis did not answer at REDIS_URL.',
  REDIS_FULL: "Redis's memory is full (maxmemory reached, noeviction): it refused a write, before any of it was made.",
  CSV_UNREADABLE: 'The CSV file could not be opened or read.',
  CSV_HEADER_INVALID: 'The CSV header lacks a column the campaign needs; nothing was enqueued.',
  CSV_NOT_CSV: 'The file is not CSV text (an image, a ZIP/xlsx workbook, an HTML page, a PDF); nothing was created.',
  CSV_UNCLOSED_QUOTE: 'A quote opens and never closes, so the rest of the file cannot be split into records; nothing was created.',
  CSV_NO_ROWS: 'The CSV has a header but no data rows; nothing was created.',
  OUTPUT_UNWRITABLE: 'A report, rejects file or REPORTS_DIR cannot be written.',
  PORT_IN_USE: 'The port a server was asked to listen on is taken, or the address cannot be bound.',
  DASHBOARD_PASSWORD_REQUIRED:
    '`campaign serve` was asked to listen beyond loopback with no DASHBOARD_PASSWORD: the ' +
    'campaigns page and its controls would be open to the network.',
  DASHBOARD_LOGIN_THROTTLED:
    'Too many wrong dashboard passwords from this address or for this user in a minute: logins are refused, the right ' +
    'one too, until the minute ends (HTTP 429, with Retry-After).',
  INGEST_INTERRUPTED: 'campaign send was stopped (Ctrl-C, SIGTERM) while reading the file; the campaign is paused and can be continued.',
  COMMAND_TIMEOUT: 'A one-shot command (status, report, list, a control) did not finish within CLI_TIMEOUT_SECONDS (exit code 124).',
  INTERNAL_ERROR: 'Something failed that the program did not expect (a bug); the message says what.',
  TEMPLATES_FILE_INVALID: 'The templates file is not a valid message_templates list.',
  RATE_CARD_INVALID: 'The rate card (RATE_CARD_FILE) cannot be read or has a line that is not a rate.',
  COST_ABOVE_MAX: "The campaign's estimated cost is above --max-cost (or cannot be estimated); nothing was queued.",
  CAMPAIGN_MISMATCH: 'The campaign ID exists with a different template, number or column mapping.',
  CAMPAIGN_FILE_MISMATCH:
    'A continued send (`--campaign ID`) names another recipient at a row the campaign already queued or sent; nothing was written.',
  TEMPLATE_MAPPING_INVALID: 'The columns given do not fit the template (wrong count, unknown template, not approved).',
  TEMPLATE_SLOT_UNFILLED:
    "The template has a slot a send must fill (a coupon code, an offer's end, a card's image…) that no column fills; " +
    'map it with --param SLOT=COLUMN.',
  TEMPLATE_ENDPOINT_UNSUPPORTED:
    'The template cannot be sent through the chosen endpoint (a GIF header goes only through --endpoint marketing-messages).',
  CAMPAIGN_NOT_FOUND: 'No campaign with that ID exists under this QUEUE_PREFIX.',
  CAMPAIGN_STATE_CONFLICT: 'The campaign is in a state where this command cannot act (cancelled, or already completed).',
  CAMPAIGN_PURGED: "The campaign's rows were purged, so a command that needs them (report, retry) has nothing to work on.",
  API_TOKEN_NAME_TAKEN: 'An API token with that name exists; names are unique.',
  API_TOKEN_NOT_FOUND: 'No API token has that name under this QUEUE_PREFIX.',
  API_TOKEN_MISSING: 'An API request has no Authorization header, or not "Bearer" with a token of the cwt_ form (HTTP 401).',
  API_TOKEN_INVALID: 'An API request carries a token that is unknown or revoked (HTTP 401).',
  API_TOKEN_EXPIRED: 'An API request carries a token past its expiry (HTTP 401).',
  API_SCOPE_REFUSED: 'An API request needs a wider token scope than the token has (read < send < admin) (HTTP 403).',
  API_CSRF_REFUSED: "A request of the dashboard's pages to the API lacks a valid CSRF token or came from another site (HTTP 403).",
  API_NOT_FOUND: 'No API route, or no such resource, at that path (HTTP 404).',
  API_METHOD_NOT_ALLOWED: 'The path exists, but not with that method (HTTP 405, with `Allow` listing the methods it takes).',
  API_REQUEST_TIMEOUT: 'The request did not arrive whole in time: the connection sent its headers or body too slowly (HTTP 408).',
  API_URI_TOO_LONG: 'A part of the request path is longer than the server reads (HTTP 414).',
  API_HEADERS_TOO_LARGE: "The request's URL and headers together are larger than the server reads (HTTP 431).",
  API_REQUEST_INVALID: "An API request's body, query or headers are not what the route takes (HTTP 400 or 415).",
  API_UPLOAD_TOO_LARGE: 'An API upload is larger than API_MAX_UPLOAD_BYTES (HTTP 413); nothing was created.',
  API_RATE_LIMITED: 'An API token made more than API_RATE_LIMIT requests in a minute (HTTP 429).',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still being processed (HTTP 409).',
  IDEMPOTENCY_KEY_REUSED: 'An Idempotency-Key was reused with a different request; its first campaign is named (HTTP 422).',
  SPEC_INVALID: 'A campaign spec or its file has problems; every one is listed (HTTP 422 from the API).',
  CAMPAIGN_NOT_FINISHED:
    '`campaign retarget` needs a finished (completed or cancelled) campaign; this one is still running, paused or scheduled.',
  RETARGET_NO_ROWS: 'No row of the campaign matches the `campaign retarget` selection; no campaign was created.',
  AUDIENCE_NAME_INVALID:
    "An audience's name is not one the product can store (a letter or digit, then letters, digits, `_`, `-` or `.`, 64 at most).",
  AUDIENCE_NOT_FOUND: 'No audience of that name in the portfolio (HTTP 404).',
  AUDIENCE_WHERE_INVALID: 'A `--where` filter over an audience does not parse, or names an attribute the audience does not have.',
  AUDIENCE_NO_CONTACTS: 'The audience, or its segment chosen by `--where`, has no contact; no campaign was created.',
  CONSENT_FILE_INVALID: 'A consent file lacks its phone column, or has no data rows; nothing was recorded.',
  TEST_SEND_INVALID: '`--test-to` names a number that is not E.164, or more test numbers than the file has rows.',
  HOOK_INVALID:
    'A hook cannot be added as asked: its URL is not http(s), an event is not one the product sends, or its name is taken or malformed.',
  HOOK_NOT_FOUND: 'No outbound hook of that name (HTTP 404).',
  CLICK_TRACKING_INVALID:
    '`--track-clicks` cannot be used as asked: PUBLIC_URL is unset, the template has no URL button with a dynamic suffix ' +
    'whose base URL points at PUBLIC_URL, or `--click-url-column` is missing.',
  REJECTS_NOT_FOUND: 'The campaign has no rejects file: none of its rows was rejected or skipped, or the file was removed (HTTP 404).',
  JOB_PAYLOAD_INVALID: 'A queued job does not match the send-job schema.',
  ENQUEUE_FAILED: 'BullMQ did not accept a chunk of jobs.',
  CLOUD_API_ERROR: 'The Cloud API answered with a Graph error body (see metaCode).',
  CLOUD_API_TRANSPORT: 'The request to the Cloud API failed before an answer arrived (timeout, connection).',
  CLOUD_API_BAD_RESPONSE: 'The Cloud API answered with a body that is not the documented shape.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
