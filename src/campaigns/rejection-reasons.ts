/** Stable codes for rows refused before sending; the report and rejects list carry them. */
export const REJECTION_REASONS = {
  FIELD_COUNT: 'the row has a different number of fields from the header',
  PHONE_MISSING: 'the phone column is empty',
  PHONE_INVALID: 'the phone number is not a valid international number',
  VALUE_EMPTY: "a template variable (or a --text placeholder's column) is empty, or only spaces and invisible characters",
  VALUE_LINE_BREAK: 'a template variable contains a line break (LF, CR, NEL, U+2028, U+2029; Meta rejects it)',
  VALUE_TAB: 'a template variable contains a tab (Meta rejects it)',
  VALUE_SPACES: 'a template variable contains more than 4 consecutive spaces (Meta rejects it)',
  VALUE_CONTROL_CHAR:
    "a template variable (or a --text placeholder's value) contains a control character (C0, DEL, C1, NUL; e.g. an escape sequence)",
  VALUE_BIDI_CONTROL:
    "a template variable (or a --text placeholder's value) contains a bidirectional override or " +
    'isolate (U+202A–U+202E, U+2066–U+2069), which can disguise text',
  FIELD_TOO_LONG: 'a field is longer than 4,096 characters (no template value can be that long); it was not read',
  BODY_TOO_LONG: "the message body with this row's values is longer than Meta's 1,024 characters",
  HEADER_TOO_LONG: "the text header with this row's value is longer than Meta's 60 characters",
  TEXT_TOO_LONG: "a --text message with this row's values is longer than Meta's 4,096 characters",
  MALFORMED_RECORD: 'the line cannot be read as CSV (for example an unclosed quote)',
  HEADER_LINK_INVALID: "the header media link (or a carousel card's) is not an http:// or https:// URL",
  CLICK_URL_INVALID:
    "the tracked link's destination (--track-clicks, --click-url-column) is not an http:// or https:// URL of at most 2,048 characters",
  COUPON_CODE_INVALID: "the coupon code is empty, longer than Meta allows (20; 15 in a limited-time offer's template) or holds a space",
  OTP_CODE_INVALID: "the authentication code is longer than Meta's 15 characters",
  OFFER_EXPIRY_INVALID: "the limited-time offer's end is not a time (an ISO 8601 time with offset, or epoch milliseconds)",
  OFFER_EXPIRY_PAST: "the limited-time offer's end is already past",
  OFFER_EXPIRY_AFTER_CAMPAIGN: "the limited-time offer ends after the campaign's rows expire",
  LOCATION_INVALID: 'the location is not latitude,longitude in degrees',
  PRODUCT_ID_INVALID: "a product's retailer ID is empty, holds a space or is too long",
  PRODUCT_SECTIONS_INVALID: 'a multi-product message\'s products are not "Title: id1, id2; Other: id3" within Meta\'s limits',
  FLOW_DATA_INVALID: "the Flow's first-screen data is not a JSON object",
  HEADER_FILE_INVALID:
    "the header's file (--header-file-column) is empty, absolute, or outside the CSV file's folder; give a path relative to that folder",
  MEDIA_UPLOAD_REFUSED: 'the Cloud API refused the upload of the header media (131053): its type or size is not one Meta takes',
  MEDIA_UNREACHABLE: 'the header media could not be fetched (no answer, an error status, a private address, or a timeout)',
  MEDIA_TYPE_MISMATCH: "the header media's type does not match the template's header format",
  MEDIA_TOO_LARGE: 'the header media is larger than Meta allows for its kind',
  TEMPLATE_LANGUAGE_MISSING: "the row's language (--language-column) has no approved template of this name, and there is no fallback",
  DUPLICATE_PHONE: 'the same phone number appears earlier in this campaign (skipped, first row wins)',
  ALREADY_SENT: 'this number already sent the same message (template, language and values) to this recipient within DUPLICATE_WINDOW_HOURS',
  TIMEZONE_INVALID: 'the time-zone column (--timezone-column) holds no IANA time zone such as Europe/Berlin',
  TIMEZONE_UNKNOWN:
    'the campaign has a send window, and no time zone is known for this number (a non-geographic ' +
    'code such as +800); give one in --timezone-column',
  WINDOW_NEVER_OPEN:
    "the campaign has a send window, and the recipient's number only says its country, whose time " +
    'zones never share an open hour of the window (the row would wait forever); give its zone in ' +
    '--timezone-column, pass --default-timezone, or widen --window',
  OPTED_OUT:
    'the recipient stopped marketing messages from this business (Meta answered 131050 to an earlier ' +
    'send, they sent an opt-out keyword or stopped marketing in WhatsApp, or an operator added them); ' +
    'a MARKETING template or a --text message is not sent to them',
  MARKETING_CAP_WAIT:
    'a MARKETING template to a recipient whose marketing template Meta failed with 131049 (its marketing cap for the ' +
    'user) less than 24 hours ago, on any number of this business; Meta penalises a resend within 24 hours, so it waits',
  MARKETING_US_PAUSED:
    'a MARKETING template to a US number (+1 with a US area code): Meta has paused marketing to the US since ' +
    '2025-04-01 and fails it with 131049; `send --allow-us-marketing` sends it anyway',
  NO_CONSENT:
    'a MARKETING template under --require-consent to a recipient with no opt-in on record in this business portfolio ' +
    "(`campaign consent show PHONE`); record one with `campaign consent import` or an audience's --consent-column",
  FREQUENCY_CAPPED:
    'the recipient already got as many messages of this kind from this business portfolio as FREQUENCY_CAPS allows within ' +
    "its window (any campaign, any number); checked at the row's claim. `send --ignore-frequency-caps` sends anyway",
  WINDOW_CLOSED:
    'a --text message: the recipient has not written to this number in the last 24 hours (no open ' +
    'customer-service window), so Meta would refuse free-form text (131047)',
} as const;

export type RejectionReason = keyof typeof REJECTION_REASONS;
