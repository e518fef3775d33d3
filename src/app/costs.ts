import type { AppContext } from './app-context.js';
import { AppError } from '../errors/app-error.js';
import { fetchPricingAnalytics, PRICING_ANALYTICS_MAX_DAYS, type PricingPoint } from '../cloud-api/pricing-analytics-client.js';
import { roundAmount } from '../pricing/cost-estimate.js';
import { billedRows, type BilledRows } from '../pricing/ledger-billed.js';
import { loadRateCard } from '../pricing/rate-card.js';

const DAY_MS = 86_400_000;

/** `campaign costs`: what Meta charged the WABA (pricing_analytics) beside what the ledger's billable rows come to by the card. */
export interface CostsView {
  since: string;
  until: string;
  /** The rate card's currency; Meta's `cost` is in the WABA's billing currency, which should be the same. */
  currency: string;
  rateCard: string;
  charged: { messages: number; amount: number; byCategory: { category: string; messages: number; amount: number }[] };
  estimated: BilledRows;
}

/** Both over `since` (default: this month) to now, by the ledger's clock; needs the WABA and its access token. */
export async function readCosts(
  context: Pick<AppContext, 'config' | 'ledger'>,
  options: { since?: string | undefined },
): Promise<CostsView> {
  const { config, ledger } = context;
  const card = loadRateCard(config.rateCardFile);
  const until = await ledger.now();
  const since = sinceOf(options.since, until);
  const wabaId = config.templates.businessAccountId;
  if (wabaId === undefined || config.accessToken === undefined) {
    throw new AppError(
      'CONFIG_INVALID',
      'campaign costs reads pricing_analytics of the WhatsApp Business Account: set WHATSAPP_BUSINESS_ACCOUNT_ID and WHATSAPP_ACCESS_TOKEN',
    );
  }
  const points = await fetchPricingAnalytics({
    baseUrl: config.api.baseUrl,
    apiVersion: config.api.version,
    businessAccountId: wabaId,
    accessToken: config.accessToken,
    timeoutMs: config.api.timeoutMs,
    start: Math.floor(since / 1000),
    end: Math.ceil(until / 1000),
  });
  return {
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    currency: card.currency,
    rateCard: card.file,
    charged: chargedOf(points),
    estimated: await billedRows(ledger, card, since, until),
  };
}

/**
 * `--since DATE` (YYYY-MM-DD, UTC midnight, or an ISO 8601 time with offset); default the
 * start of this month (UTC): Meta bills by month.
 */
export function sinceOf(value: string | undefined, now: number): number {
  const month = new Date(now);
  if (value === undefined) return Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1);
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  const at = Number.isNaN(day) && /T.*(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : day;
  if (Number.isNaN(at) || at >= now || now - at > PRICING_ANALYTICS_MAX_DAYS * DAY_MS) {
    throw new AppError(
      'OPTION_INVALID',
      `--since "${value.slice(0, 40)}": give a day (2026-11-01) or a time with offset in the last ` +
        `${PRICING_ANALYTICS_MAX_DAYS} days (Meta's pricing_analytics covers at most that much per call)`,
    );
  }
  return at;
}

function chargedOf(points: readonly PricingPoint[]): CostsView['charged'] {
  const byCategory = new Map<string, { messages: number; amount: number }>();
  for (const p of points) {
    const entry = byCategory.get(p.category) ?? { messages: 0, amount: 0 };
    entry.messages += p.volume;
    entry.amount += p.cost;
    byCategory.set(p.category, entry);
  }
  const categories = [...byCategory].sort(([a], [b]) => a.localeCompare(b));
  return {
    messages: categories.reduce((n, [, e]) => n + e.messages, 0),
    amount: roundAmount(categories.reduce((n, [, e]) => n + e.amount, 0)),
    byCategory: categories.map(([category, e]) => ({ category, messages: e.messages, amount: roundAmount(e.amount) })),
  };
}
