import { countryOfRecipient, marketOfRecipient } from '../pricing/markets.js';
import { cardCategoryOf, loadRateCard, rateAt, type RateCard } from '../pricing/rate-card.js';
import type { AcceptedMessage } from './accepted-log.js';
import { missingParameter, type GraphErrorSpec } from './graph-error.js';
import { pricingOf } from './status-pricing.js';

/**
 * The WABA's `pricing_analytics` field (reference cloud-api-2026.md §1, [M17]), answered from the
 * messages the sandbox delivered (accepted and not reported failed), priced with the shipped
 * rate card: `pricing_analytics.start(S).end(E).granularity(G)` with optional `.dimensions([…])`,
 * `.metric_types([…])`, `.country_codes([…])`, `.phone_numbers([…])`. Strict as Graph: a missing
 * start, end or granularity, an unknown modifier or value, end not after start, or more than 90
 * days is refused with 100.
 */
const GRANULARITIES: Record<string, (at: number) => { start: number; end: number }> = {
  HALF_HOUR: (at) => ({ start: at - (at % 1800), end: at - (at % 1800) + 1800 }),
  DAILY: (at) => ({ start: at - (at % 86_400), end: at - (at % 86_400) + 86_400 }),
  MONTHLY: (at) => {
    const d = new Date(at * 1000);
    return {
      start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000,
      end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000,
    };
  },
};
const DIMENSIONS = new Set(['PRICING_CATEGORY', 'PRICING_TYPE', 'COUNTRY', 'PHONE']);
const METRIC_TYPES = new Set(['COST', 'VOLUME']);
const MODIFIERS = new Set(['start', 'end', 'granularity', 'dimensions', 'metric_types', 'country_codes', 'phone_numbers']);
const MAX_SECONDS = 90 * 86_400;

interface Query {
  start: number;
  end: number;
  bucket: (at: number) => { start: number; end: number };
  dimensions: Set<string>;
  metrics: Set<string>;
  countries: Set<string> | undefined;
  phoneNumbers: Set<string> | undefined;
}

let card: RateCard | undefined;

/** `pricing_analytics…` as the `fields` value holds it: the answer's field, or Graph's error. */
export function pricingAnalytics(field: string, messages: readonly AcceptedMessage[]): { value: unknown } | { error: GraphErrorSpec } {
  const query = parseQuery(field);
  if ('error' in query) return query;
  card ??= loadRateCard(undefined);
  const points = new Map<string, Record<string, unknown> & { volume: number; cost: number }>();
  for (const message of messages) {
    if (message.failure !== undefined) continue;
    const at = Math.floor(message.receivedAt / 1000);
    if (at < query.start || at >= query.end) continue;
    const pricing = pricingOf(message);
    const country = countryOfRecipient(message.waId) ?? '';
    if (query.countries !== undefined && !query.countries.has(country)) continue;
    if (query.phoneNumbers !== undefined && !query.phoneNumbers.has(message.phoneNumberId)) continue;
    const split: Record<string, unknown> = { ...query.bucket(at) };
    if (query.dimensions.has('PRICING_CATEGORY')) split.pricing_category = pricing.category.toUpperCase();
    if (query.dimensions.has('PRICING_TYPE')) split.pricing_type = pricing.type.toUpperCase();
    if (query.dimensions.has('COUNTRY')) split.country = country;
    if (query.dimensions.has('PHONE')) split.phone_number = message.phoneNumberId;
    const key = JSON.stringify(split);
    const point = points.get(key) ?? { ...split, volume: 0, cost: 0 };
    point.volume++;
    const category = cardCategoryOf(pricing.category);
    const rate =
      pricing.billable && category !== undefined ? rateAt(card, marketOfRecipient(message.waId), category, message.receivedAt) : 0;
    point.cost = Math.round((point.cost + (rate ?? 0)) * 1e6) / 1e6;
    points.set(key, point);
  }
  const dataPoints = [...points.values()]
    .sort((a, b) => Number(a.start) - Number(b.start))
    .map(({ volume, cost, ...rest }) => ({
      ...rest,
      ...(query.metrics.has('VOLUME') ? { volume } : {}),
      ...(query.metrics.has('COST') ? { cost } : {}),
    }));
  return { value: { data: [{ data_points: dataPoints }] } };
}

function parseQuery(field: string): Query | { error: GraphErrorSpec } {
  const bad = (message: string): { error: GraphErrorSpec } => ({ error: { code: 100, message: `(#100) ${message}` } });
  const params = new Map<string, string>();
  const rest = field.slice('pricing_analytics'.length);
  const pattern = /\.([a-z_]+)\(([^()]*)\)/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = pattern.exec(rest)) !== null) {
    const [, name = '', value = ''] = match;
    if (!MODIFIERS.has(name)) return bad(`pricing_analytics does not take the parameter ${name}`);
    params.set(name, value);
    consumed = pattern.lastIndex;
  }
  if (consumed !== rest.length) return bad(`Syntax error "Expected end of string instead of "${rest.slice(consumed, consumed + 20)}"."`);
  for (const name of ['start', 'end', 'granularity']) if (!params.has(name)) return { error: missingParameter(name) };
  const start = Number(params.get('start'));
  const end = Number(params.get('end'));
  if (!/^\d+$/.test(params.get('start') ?? '') || !/^\d+$/.test(params.get('end') ?? ''))
    return bad('Param start and end must be UNIX timestamps in seconds');
  if (end <= start) return bad('Param end must be after start');
  if (end - start > MAX_SECONDS) return bad('The time range of pricing_analytics must be at most 90 days');
  const granularity = params.get('granularity') ?? '';
  const bucket = GRANULARITIES[granularity];
  if (bucket === undefined) return bad(`Param granularity must be one of {HALF_HOUR, DAILY, MONTHLY} - got "${granularity}"`);
  const dimensions = listOf(params.get('dimensions'), DIMENSIONS, 'dimensions');
  if ('error' in dimensions) return bad(dimensions.error);
  const metrics = listOf(params.get('metric_types'), METRIC_TYPES, 'metric_types');
  if ('error' in metrics) return bad(metrics.error);
  const countries = params.has('country_codes') ? listOf(params.get('country_codes'), undefined, 'country_codes') : undefined;
  if (countries !== undefined && 'error' in countries) return bad(countries.error);
  const phones = params.has('phone_numbers') ? listOf(params.get('phone_numbers'), undefined, 'phone_numbers') : undefined;
  if (phones !== undefined && 'error' in phones) return bad(phones.error);
  return {
    start,
    end,
    bucket,
    dimensions: dimensions.values,
    metrics: params.has('metric_types') ? metrics.values : METRIC_TYPES,
    countries: countries?.values,
    phoneNumbers: phones?.values,
  };
}

/** `["A","B"]` (or `[A,B]`): the values, each one of `allowed` when given. */
function listOf(
  raw: string | undefined,
  allowed: ReadonlySet<string> | undefined,
  name: string,
): { values: Set<string> } | { error: string } {
  if (raw === undefined) return { values: new Set() };
  const inner = /^\[(.*)\]$/.exec(raw.trim());
  if (inner === null) return { error: `Param ${name} must be an array` };
  const values = (inner[1] ?? '')
    .split(',')
    .map((v) => v.trim().replace(/^"(.*)"$/, '$1'))
    .filter((v) => v !== '');
  const unknown = allowed === undefined ? undefined : values.find((v) => !allowed.has(v));
  if (unknown !== undefined) return { error: `Param ${name}[] must be one of {${[...(allowed ?? [])].join(', ')}} - got "${unknown}"` };
  return { values: new Set(values) };
}
