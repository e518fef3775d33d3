import type { SlotKind } from '../templates/slots/template-slot.js';
import { boundedBadValue } from './ingest/bad-value.js';
import { CONTROL, valueProblem, valueProblemDetail, type ValueProblem } from './parameter-rules.js';
import type { RejectionReason } from './rejection-reasons.js';
import { parseProductSections } from './product-sections.js';

/**
 * Meta's rules for the value of each kind of slot (templates/components and the pages of each
 * template kind), applied by the producer to every row before it is queued and again by the
 * worker before each send. A value is normalised once (an offer's end to epoch milliseconds,
 * a URL's end percent-encoded), so the worker sends what the producer checked.
 */
export type SlotVerdict = { ok: true; value: string } | { ok: false; reason: RejectionReason; detail: string };

export interface SlotContext {
  now: number;
  /** When the campaign's unsent rows expire (epoch ms): an offer may not end after it. */
  campaignExpiresAt?: number | undefined;
}

/** Coupon codes: "Maximum 20 characters" (coupon-templates); a slot in an offer's template says 15. */
export const MAX_COUPON_CODE_CHARS = 20;
/** Product retailer IDs, as a catalog's content ID field allows. */
export const MAX_PRODUCT_ID_CHARS = 100;
/** A Flow's first-screen data is a JSON object; kept well under Meta's request limits. */
const MAX_FLOW_DATA_CHARS = 4000;

const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
/** An ISO 8601 instant with its offset, read part by part so that a day that does not exist (02-30) is refused, not rolled over. */
const ISO_INSTANT = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,3})?)?(Z|[+-]\d\d:?\d\d)$/i;

/** `maxLength`: the slot's own limit, tighter than its kind's (an offer's coupon code, an authentication code). */
export function checkSlotValue(
  kind: SlotKind | 'language',
  raw: string,
  column: string,
  context: SlotContext,
  maxLength?: number,
): SlotVerdict {
  const value = raw.trim();
  switch (kind) {
    case 'text':
      if (maxLength !== undefined && value.length > maxLength) {
        return refuse('OTP_CODE_INVALID', `${at(column)}: the code has ${value.length} characters; Meta allows ${maxLength}`);
      }
      return textValue(value, column);
    case 'language':
      return { ok: true, value };
    case 'payload':
    case 'filename':
    case 'location_name':
    case 'location_address':
    case 'flow_token':
      return textValue(value, column);
    case 'url': {
      const verdict = textValue(value, column);
      return verdict.ok ? { ok: true, value: encodeUrlSuffix(verdict.value) } : verdict;
    }
    case 'media':
      return isWebUrl(value)
        ? { ok: true, value }
        : {
            ok: false,
            reason: 'HEADER_LINK_INVALID',
            detail: `${at(column)}: "${boundedBadValue(value)}" is not an http:// or https:// URL`,
          };
    case 'coupon_code':
      return couponCode(value, at(column), maxLength ?? MAX_COUPON_CODE_CHARS);
    case 'location':
      return location(value, at(column));
    case 'expiration':
      return expiration(value, at(column), context);
    case 'product':
    case 'catalog_id':
    case 'thumbnail':
      return productId(value, at(column));
    case 'sections': {
      const sections = parseProductSections(value);
      return 'problem' in sections ? refuse('PRODUCT_SECTIONS_INVALID', `${at(column)}: ${sections.problem}`) : { ok: true, value };
    }
    case 'flow_action_data':
      return flowActionData(value, at(column));
  }
}

/** Meta names no character set for a code: it must be visible text (the value rules) of at most `max` characters, without spaces. */
/** How a refusal names the value's place: built only for a refusal, as values are checked on every row. */
function at(column: string): string {
  return `column "${column}"`;
}

/** The text rules of a template variable (valueProblem); the column is named only in a refusal's detail. */
function textValue(value: string, column: string): SlotVerdict {
  const problem = valueProblem(value);
  return problem === undefined ? { ok: true, value } : textRefusal(value, column, problem);
}

/** A text value's refusal, naming its column and the rule it breaks. */
export function textRefusal(value: string, column: string, problem: ValueProblem): Extract<SlotVerdict, { ok: false }> {
  return { ok: false, reason: problem, detail: `${at(column)} ${valueProblemDetail(value, problem)}` };
}

function couponCode(value: string, where: string, max: number): SlotVerdict {
  if (value === '' || value.length > max || /[\s\p{Default_Ignorable_Code_Point}]/u.test(value) || valueProblem(value) !== undefined) {
    return refuse(
      'COUPON_CODE_INVALID',
      `${where}: "${boundedBadValue(value)}" is not a coupon code Meta takes: 1 to ${max} visible characters, no spaces`,
    );
  }
  return { ok: true, value };
}

function location(value: string, where: string): SlotVerdict {
  const [lat = '', long = '', ...rest] = value.split(',').map((part) => part.trim().replace(/^\+(?=\d)/, ''));
  const valid =
    rest.length === 0 && DECIMAL.test(lat) && DECIMAL.test(long) && Math.abs(Number(lat)) <= 90 && Math.abs(Number(long)) <= 180;
  if (!valid) {
    return refuse(
      'LOCATION_INVALID',
      `${where}: "${boundedBadValue(value)}" is not latitude,longitude in degrees ` +
        '(latitude -90 to 90, longitude -180 to 180), e.g. 52.52,13.405',
    );
  }
  // The degrees as written (Meta's examples send them as strings): a number's own text could turn 0.0000001 into 1e-7.
  return { ok: true, value: `${lat},${long}` };
}

function expiration(value: string, where: string, context: SlotContext): SlotVerdict {
  const ms = /^\d{12,14}$/.test(value) ? Number(value) : isoInstant(value);
  if (!Number.isFinite(ms)) {
    return refuse(
      'OFFER_EXPIRY_INVALID',
      `${where}: "${boundedBadValue(value)}" is not a time: write an ISO 8601 time with its offset ` +
        '(2026-12-24T18:00:00+01:00) or epoch milliseconds',
    );
  }
  if (ms <= context.now) {
    return refuse('OFFER_EXPIRY_PAST', `${where}: the offer ended at ${new Date(ms).toISOString()}, before now; give a later end`);
  }
  if (context.campaignExpiresAt !== undefined && ms > context.campaignExpiresAt) {
    return refuse(
      'OFFER_EXPIRY_AFTER_CAMPAIGN',
      `${where}: the offer ends at ${new Date(ms).toISOString()}, after the campaign's rows expire ` +
        `(${new Date(context.campaignExpiresAt).toISOString()}); end the offer by then, or let the rows expire later`,
    );
  }
  return { ok: true, value: String(ms) };
}

function isoInstant(value: string): number {
  const m = ISO_INSTANT.exec(value);
  if (m === null) return NaN;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && hour < 24 && minute < 60 && second < 60 ? Date.parse(value) : NaN;
}

function productId(value: string, where: string): SlotVerdict {
  if (value === '' || value.length > MAX_PRODUCT_ID_CHARS || /\s/.test(value) || CONTROL.test(value)) {
    return refuse(
      'PRODUCT_ID_INVALID',
      `${where}: "${boundedBadValue(value)}" is not a product retailer ID (1 to ${MAX_PRODUCT_ID_CHARS} characters, no spaces)`,
    );
  }
  return { ok: true, value };
}

function flowActionData(value: string, where: string): SlotVerdict {
  let parsed: unknown;
  try {
    parsed = value.length > MAX_FLOW_DATA_CHARS ? undefined : JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return refuse(
      'FLOW_DATA_INVALID',
      `${where}: the Flow's data must be a JSON object of at most ${MAX_FLOW_DATA_CHARS} characters, e.g. {"offer":"A"}`,
    );
  }
  return { ok: true, value: JSON.stringify(parsed) };
}

function refuse(reason: RejectionReason, detail: string): SlotVerdict {
  return { ok: false, reason, detail };
}

/** Percent-encodes what is not already URL-safe, leaving existing %XX escapes alone: Meta wants a URL's end encoded. */
export function encodeUrlSuffix(value: string): string {
  // `u`: an emoji is one code point, encoded whole (its UTF-16 halves alone would throw).
  return value.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/gu, (c) => encodeURIComponent(c));
}

/** Meta takes media links over HTTP or HTTPS (MediaObject.link). */
export function isWebUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
