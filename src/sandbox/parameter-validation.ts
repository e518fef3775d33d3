import { GraphRejection } from './graph-error.js';
import { INVALID, MISSING_VALUE, rejectUnknownKeys, requireObject, requireString, type JsonObject } from './json-checks.js';
import { readLocation, readProduct } from './kinds/place-parameters.js';
import { readMediaObject, type MediaIds } from './media-object.js';

/**
 * One entry of a component's `parameters[]` (reference §1.4, parameter objects; the page of
 * each template kind for the others). The caller says which kinds fit where it sits (an IMAGE
 * header takes `image`, a body takes text, currency or date_time, a copy-code button
 * `coupon_code` …); a kind Meta knows but that does not fit is a format mismatch (132012), a
 * kind Meta does not know at all is an invalid parameter (100).
 */
export type ParameterKind =
  | 'text'
  | 'currency'
  | 'date_time'
  | 'image'
  | 'video'
  | 'document'
  | 'gif'
  | 'location'
  | 'product'
  | 'payload'
  | 'coupon_code'
  | 'action'
  | 'limited_time_offer'
  | 'ttl_minutes';

/** Parameter types Meta's API defines, including one no template the sandbox lists takes. */
const KNOWN_KINDS = new Set<string>([
  'text',
  'currency',
  'date_time',
  'image',
  'video',
  'document',
  'gif',
  'location',
  'product',
  'payload',
  'coupon_code',
  'action',
  'limited_time_offer',
  'ttl_minutes',
  'tap_target_configuration',
]);

/** Kinds whose value is substituted into a `{{placeholder}}` and may carry a name. */
const VARIABLE_KINDS = new Set<string>(['text', 'currency', 'date_time']);

export const WHITESPACE_DETAILS = 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces';
/** Meta's details for a NAMED template's parameter sent without its name (reference §2.3, code 100). */
export const NAME_MISSING_DETAILS = 'Parameter name is missing or empty';
const FORBIDDEN_WHITESPACE = /[\n\r\t]| {5}/;

export interface ParameterValue {
  kind: ParameterKind;
  /** `parameter_name` as sent (NAMED templates only). */
  name?: string;
  /** The text that replaces the placeholder (`fallback_value` for currency/date_time), a payload, a coupon code. */
  text?: string;
  /** The object an `action` or `limited_time_offer` parameter carries, for the caller to judge. */
  object?: JsonObject;
  /** A voice-call button's `ttl_minutes`. */
  number?: number;
}

export interface ParameterRules {
  allowed: readonly ParameterKind[];
  /** The template's parameter_format: NAMED requires `parameter_name`, POSITIONAL forbids it. */
  named: boolean;
  /** NAMED only: a parameter without `parameter_name` is taken too (URL-button variables). */
  nameOptional?: boolean;
  /** The uploads a media `id` must name; without it, any ID is taken. */
  media?: MediaIds | undefined;
  /** Where the parameter sits, as Meta names it in a format mismatch (`header`, `body`, `card 0 header`). */
  component?: string;
}

const KEYS: Record<ParameterKind, ReadonlySet<string>> = {
  text: new Set(['type', 'text', 'parameter_name']),
  currency: new Set(['type', 'currency', 'parameter_name']),
  date_time: new Set(['type', 'date_time', 'parameter_name']),
  image: new Set(['type', 'image']),
  video: new Set(['type', 'video']),
  document: new Set(['type', 'document']),
  gif: new Set(['type', 'gif']),
  location: new Set(['type', 'location']),
  product: new Set(['type', 'product']),
  payload: new Set(['type', 'payload']),
  coupon_code: new Set(['type', 'coupon_code']),
  action: new Set(['type', 'action']),
  limited_time_offer: new Set(['type', 'limited_time_offer']),
  ttl_minutes: new Set(['type', 'ttl_minutes']),
};

export function readParameter(param: unknown, where: string, rules: ParameterRules): ParameterValue {
  const object = requireObject(param, where);
  const type = requireString(object, 'type', where);
  if (!KNOWN_KINDS.has(type)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.type has an invalid value: ${type}`);
  }
  const kind = type as ParameterKind;
  if (!rules.allowed.includes(kind)) throw formatMismatch(rules.component ?? where, rules.allowed, type);
  rejectUnknownKeys(object, KEYS[kind], where);

  const value: ParameterValue = { kind };
  if (VARIABLE_KINDS.has(kind)) {
    const name = object['parameter_name'];
    const unnamedAllowed = rules.nameOptional === true && name === undefined;
    if (rules.named && !unnamedAllowed) {
      if (typeof name !== 'string' || name === '') throw new GraphRejection(INVALID, NAME_MISSING_DETAILS);
      value.name = name;
    } else if (!rules.named && name !== undefined) {
      // Meta leaves positional templates without names; a name here means the client
      // believes the template is NAMED, which is worth failing loudly in a simulator.
      throw new GraphRejection(INVALID, `${where}: parameter_name is only allowed for templates with NAMED parameters`);
    }
  }
  return { ...value, ...readContent(kind, object, where, rules.media) };
}

/**
 * Meta's details when a header is not the template's format: `header: Format mismatch, expected
 * IMAGE, received UNKNOWN` (seen in real answers; UNKNOWN when no header was sent at all).
 */
export function formatMismatch(component: string, allowed: readonly string[], received: string): GraphRejection {
  const expected = allowed.map((kind) => kind.toUpperCase()).join(' or ');
  return new GraphRejection(132012, `${component}: Format mismatch, expected ${expected}, received ${received.toUpperCase()}`);
}

function readContent(kind: ParameterKind, object: JsonObject, where: string, media: MediaIds | undefined): Omit<ParameterValue, 'kind'> {
  const inner = `${where}.${kind}`;
  switch (kind) {
    case 'text':
      return { text: readText(object, 'text', where) };
    case 'currency':
      return { text: readCurrency(requireObject(object['currency'], inner), inner) };
    case 'date_time':
      return { text: readDateTime(requireObject(object['date_time'], inner), inner) };
    case 'image':
    case 'video':
    case 'document':
    case 'gif':
      readMediaObject(requireObject(object[kind], inner), inner, MEDIA_KEYS[kind], media);
      return {};
    case 'location':
      readLocation(requireObject(object['location'], inner), inner);
      return {};
    case 'product':
      readProduct(requireObject(object['product'], inner), inner);
      return {};
    case 'payload':
      return { text: requireString(object, 'payload', where) };
    case 'coupon_code':
      return { text: readText(object, 'coupon_code', where) };
    case 'action':
    case 'limited_time_offer':
      return { object: requireObject(object[kind], inner) };
    case 'ttl_minutes':
      return { number: readTtlMinutes(object, where) };
  }
}

/**
 * A string that ends up in the rendered message: non-empty, no layout whitespace. Absent is
 * a missing field (100); present but empty is a missing value (131008, worded as Meta does
 * for text parameters).
 */
function readText(object: JsonObject, key: string, where: string): string {
  const text = requireString(object, key, where);
  if (text === '') {
    const what = key === 'text' ? 'Parameter of type text is missing text value' : `Parameter ${key} is missing its value`;
    throw new GraphRejection(MISSING_VALUE, `${what} (${where}.${key})`);
  }
  if (FORBIDDEN_WHITESPACE.test(text)) throw new GraphRejection(INVALID, WHITESPACE_DETAILS);
  return text;
}

const CURRENCY_KEYS = new Set(['fallback_value', 'code', 'amount_1000']);

function readCurrency(currency: JsonObject, where: string): string {
  rejectUnknownKeys(currency, CURRENCY_KEYS, where);
  const fallback = readText(currency, 'fallback_value', where);
  const code = requireString(currency, 'code', where);
  if (!/^[A-Z]{3}$/.test(code)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.code must be an ISO 4217 currency code`);
  }
  const amount = currency['amount_1000'];
  if (amount === undefined) throw GraphRejection.missing(`${where}.amount_1000`);
  if (typeof amount !== 'number' || !Number.isInteger(amount)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.amount_1000 must be an integer`);
  }
  return fallback;
}

// Meta always renders `fallback_value`; the calendar fields of older docs are still accepted.
const DATE_TIME_KEYS = new Set([
  'fallback_value',
  'timestamp',
  'day_of_week',
  'year',
  'month',
  'day_of_month',
  'hour',
  'minute',
  'calendar',
]);

function readDateTime(dateTime: JsonObject, where: string): string {
  rejectUnknownKeys(dateTime, DATE_TIME_KEYS, where);
  return readText(dateTime, 'fallback_value', where);
}

/**
 * A media header takes no caption (OpenAPI ImageParameter: "Captions not supported"); a
 * document may name its file (OpenAPI's document message example; no template page shows it,
 * and MediaObject does not forbid it). A GIF is a link or an upload like the others.
 */
const MEDIA_KEYS: Readonly<Record<'image' | 'video' | 'document' | 'gif', ReadonlySet<string>>> = {
  image: new Set(['link', 'id']),
  video: new Set(['link', 'id']),
  document: new Set(['link', 'id', 'filename']),
  gif: new Set(['link', 'id']),
};

/** A voice-call button's time to live at send: 1 to 43200 minutes (calling/call-button-messages-deep-links). */
const MAX_TTL_MINUTES = 43_200;

function readTtlMinutes(object: JsonObject, where: string): number {
  const ttl = object['ttl_minutes'];
  if (ttl === undefined) throw GraphRejection.missing(`${where}.ttl_minutes`);
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_MINUTES) {
    throw new GraphRejection(INVALID, `Parameter ${where}.ttl_minutes must be an integer from 1 to ${MAX_TTL_MINUTES}`);
  }
  return ttl;
}
