import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { Secret } from '../config/secret.js';
import { CloudApiBadResponseError } from './cloud-api-errors.js';
import { graphError, graphGet } from './graph-answers.js';
import { safeJson } from './safe-json.js';

/**
 * What Meta charged: `GET /{version}/{waba-id}?fields=pricing_analytics.start(S).end(E)
 * .granularity(DAILY).dimensions([…])` (reference cloud-api-2026.md §1, [M17]): data points of
 * `volume` and `cost` (in the WABA's billing currency) per day, split by the dimensions asked.
 * At most 90 days per call, in UTC; Meta calls its figures approximate.
 */
export interface PricingAnalyticsRequest {
  baseUrl: string;
  apiVersion: string;
  businessAccountId: string;
  accessToken: Secret;
  timeoutMs: number;
  /** Unix seconds. */
  start: number;
  end: number;
  dispatcher?: Dispatcher;
}

/** Meta's limit on one call's period. */
export const PRICING_ANALYTICS_MAX_DAYS = 90;

const pointSchema = z.object({
  start: z.number(),
  end: z.number(),
  volume: z.number().optional(),
  cost: z.number().optional(),
  pricing_category: z.string().optional(),
  country: z.string().optional(),
});
const answerSchema = z.object({
  pricing_analytics: z.object({ data: z.array(z.object({ data_points: z.array(pointSchema) })) }).optional(),
});

export interface PricingPoint {
  start: number;
  end: number;
  volume: number;
  cost: number;
  category: string;
  country: string;
}

/** The WABA's data points by category and country; none for a period without charged messages. */
export async function fetchPricingAnalytics(request: PricingAnalyticsRequest): Promise<PricingPoint[]> {
  const { baseUrl, apiVersion, businessAccountId, accessToken, timeoutMs, dispatcher } = request;
  const url = new URL(`${baseUrl}/${apiVersion}/${encodeURIComponent(businessAccountId)}`);
  const field =
    `pricing_analytics.start(${request.start}).end(${request.end}).granularity(DAILY)` + '.dimensions(["PRICING_CATEGORY","COUNTRY"])';
  url.searchParams.set('fields', field);
  const { status, text } = await graphGet(url, {
    accessToken,
    timeoutMs,
    ...(dispatcher === undefined ? {} : { dispatcher }),
    what: `reading pricing_analytics of WABA ${businessAccountId}`,
  });
  if (status < 200 || status >= 300) {
    const error = graphError(status, text);
    error.message =
      `Cloud API refused to read pricing_analytics of WABA ${businessAccountId} ` +
      `(${error.metaCode === undefined ? `HTTP ${status}` : `code ${error.metaCode}`}): ${error.details ?? 'no error body'}`;
    throw error;
  }
  const parsed = answerSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new CloudApiBadResponseError(status, `WABA ${businessAccountId}: pricing_analytics is not Meta's shape`);
  return (parsed.data.pricing_analytics?.data ?? []).flatMap((d) =>
    d.data_points.map((p) => ({
      start: p.start,
      end: p.end,
      volume: p.volume ?? 0,
      cost: p.cost ?? 0,
      category: (p.pricing_category ?? 'UNKNOWN').toLowerCase(),
      country: p.country ?? '',
    })),
  );
}
