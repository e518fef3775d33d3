import { GraphRejection } from './graph-error.js';
import { INVALID, MISSING_VALUE, rejectUnknownKeys, requireObject, requireString, type JsonObject } from './json-checks.js';
import { readMediaObject } from './media-object.js';
import type { MediaLookup } from './media-store.js';

/**
 * One entry of a component's `parameters[]` (reference §1.4, parameter objects). The caller
 * says which kinds fit where it sits (an IMAGE header takes `image`, a body takes text,
 * currency or date_time …); a kind Meta knows but that does not fit is a format mismatch
 * (132012), a kind Meta does not know at all is an invalid parameter (100).
 */
export type ParameterKind = 'text' | 'currency' | 'date_time' | 'image' | 'video' | 'document' | 'location' | 'payload';

/** Parameter types Meta's API defines, including ones no simulated component accepts. */
const KNOWN_KINDS = new Set<string>([
  'text',
  'currency',
  'date_time',
  'image',
  'video',
  'document',
  'location',
  'payload',
  'coupon_code',
  'action',
  'product',
  'limited_time_offer',
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
  /** The text that replaces the placeholder (`fallback_value` for currency/date_time). */
  text?: string;
}

export interface ParameterRules {
  allowed: readonly ParameterKind[];
  /** The template's parameter_format: NAMED requires `parameter_name`, POSITIONAL forbids it. */
  named: boolean;
  /** NAMED only: a parameter without `parameter_name` is taken too (URL-button variables). */
  nameOptional?: boolean;
  /** The uploads a media `id` must name; without it, any ID is taken. */
  media?: MediaLookup;
}

const KEYS: Record<ParameterKind, ReadonlySet<string>> = {
  text: new Set(['type', 'text', 'parameter_name']),
  currency: new Set(['type', 'currency', 'parameter_name']),
  date_time: new Set(['type', 'date_time', 'parameter_name']),
  image: new Set(['type', 'image']),
  video: new Set(['type', 'video']),
  document: new Set(['type', 'document']),
  location: new Set(['type', 'location']),
  payload: new Set(['type', 'payload']),
};

export function readParameter(param: unknown, where: string, rules: ParameterRules): ParameterValue {
  const object = requireObject(param, where);
  const type = requireString(object, 'type', where);
  if (!KNOWN_KINDS.has(type)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.type has an invalid value: ${type}`);
  }
  const kind = type as ParameterKind;
  if (!rules.allowed.includes(kind)) {
    throw new GraphRejection(132012, `${where}: expected ${rules.allowed.join(' or ')}, got ${type}`);
  }
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

  switch (kind) {
    case 'text':
      value.text = readText(object, 'text', where);
      break;
    case 'currency':
      value.text = readCurrency(requireObject(object['currency'], `${where}.currency`), `${where}.currency`);
      break;
    case 'date_time':
      value.text = readDateTime(requireObject(object['date_time'], `${where}.date_time`), `${where}.date_time`);
      break;
    case 'image':
    case 'video':
    case 'document':
      readMediaObject(requireObject(object[kind], `${where}.${kind}`), `${where}.${kind}`, MEDIA_KEYS[kind], rules.media);
      break;
    case 'location':
      readLocation(requireObject(object['location'], `${where}.location`), `${where}.location`);
      break;
    case 'payload':
      requireString(object, 'payload', where);
      break;
  }
  return value;
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

/** A media header takes no caption (OpenAPI ImageParameter: "Captions not supported"); a document may name its file. */
const MEDIA_KEYS: Readonly<Record<'image' | 'video' | 'document', ReadonlySet<string>>> = {
  image: new Set(['link', 'id']),
  video: new Set(['link', 'id']),
  document: new Set(['link', 'id', 'filename']),
};

const LOCATION_KEYS = new Set(['latitude', 'longitude', 'name', 'address']);

function readLocation(location: JsonObject, where: string): void {
  rejectUnknownKeys(location, LOCATION_KEYS, where);
  readCoordinate(location, 'latitude', where, 90);
  readCoordinate(location, 'longitude', where, 180);
  requireString(location, 'name', where);
  requireString(location, 'address', where);
}

/** Meta's examples send coordinates as numbers and as numeric strings; both are taken. */
function readCoordinate(location: JsonObject, key: string, where: string, limit: number): void {
  const raw = location[key];
  if (raw === undefined) throw GraphRejection.missing(`${where}.${key}`);
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
    throw new GraphRejection(INVALID, `Parameter ${where}.${key} must be a number between -${limit} and ${limit}`);
  }
}
