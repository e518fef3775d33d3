import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors/app-error.js';
import { packageRoot } from '../files/package-root.js';
import { pricingCategoryOf } from './pricing-category.js';

/**
 * A rate card: what Meta charges per delivered message, by market, category and the date the
 * rate takes effect. Meta publishes no rates API, only CSV/PDF cards per billing currency
 * (reference cloud-api-2026.md §1), and changes rates only on Jan 1 / Apr 1 / Jul 1 / Oct 1,
 * so a table keyed by `effective_from` is enough. The file is a CSV:
 *
 *   currency,market,category,rate,effective_from
 *   USD,India,marketing,0.0118,2026-01-01
 *
 * one currency per card; `#` starts a comment line. Parsed once, where a command starts.
 */

/** Meta's pricing categories a card may price (the `category` of a status's `pricing`). */
export const CARD_CATEGORIES = ['marketing', 'utility', 'authentication', 'authentication_international', 'service'] as const;
export type CardCategory = (typeof CARD_CATEGORIES)[number];

export interface RateEntry {
  market: string;
  category: CardCategory;
  rate: number;
  /** UTC midnight of `effective_from`, ms. */
  from: number;
}

export interface RateCard {
  /** Where it was read from (shown in the plan and in errors). */
  file: string;
  currency: string;
  entries: readonly RateEntry[];
}

const HEADER = ['currency', 'market', 'category', 'rate', 'effective_from'] as const;
const EXAMPLE = 'e.g. USD,India,marketing,0.0118,2026-01-01';

/** The card the package ships (an example: docs/costs.md says which file of Meta's to use instead). */
export function defaultRateCardFile(): string {
  return join(packageRoot(), 'samples', 'rate-card.example.csv');
}

/** RATE_CARD_FILE, else the shipped example, read and checked; a bad card is an error naming the file, line and column. */
export function loadRateCard(file: string | undefined): RateCard {
  const path = file ?? defaultRateCardFile();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AppError(
      'RATE_CARD_INVALID',
      `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); ` +
        'set RATE_CARD_FILE to a rate-card CSV (docs/costs.md)',
    );
  }
  return parseRateCard(text, path);
}

/** The text of a card, checked line by line. */
export function parseRateCard(text: string, file: string): RateCard {
  const fail = (line: number, column: number | undefined, problem: string): never => {
    const where = column === undefined ? `line ${line}` : `line ${line}, column ${column} (${HEADER[column - 1]})`;
    throw new AppError('RATE_CARD_INVALID', `${file}, ${where}: ${problem}`);
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let header = false;
  let currency: string | undefined;
  const entries: RateEntry[] = [];
  const seen = new Map<string, number>();
  lines.forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fields = trimmed.split(',').map((f) => f.trim());
    if (!header) {
      if (fields.join(',').toLowerCase() !== HEADER.join(',')) {
        fail(line, undefined, `the header must be exactly "${HEADER.join(',')}" (found "${trimmed.slice(0, 80)}")`);
      }
      header = true;
      return;
    }
    if (fields.length !== HEADER.length) {
      const comma = fields.length === HEADER.length + 1 ? '; a decimal comma? write the rate with a dot' : '';
      fail(
        line,
        undefined,
        `has ${fields.length} fields, a rate needs ${HEADER.length} (${EXAMPLE}); no commas inside a market name${comma}`,
      );
    }
    const entry = entryOf(fields, (column, problem) => fail(line, column, problem));
    if (currency !== undefined && entry.currency !== currency) {
      fail(line, 1, `currency ${entry.currency} differs from ${currency} above: one card holds one billing currency`);
    }
    currency = entry.currency;
    const key = `${entry.market.toLowerCase()}|${entry.category}|${entry.from}`;
    const before = seen.get(key);
    if (before !== undefined) fail(line, 2, `repeats the ${entry.market} ${entry.category} rate of line ${before} for the same date`);
    seen.set(key, line);
    entries.push({ market: entry.market, category: entry.category, rate: entry.rate, from: entry.from });
  });
  if (!header) fail(1, undefined, `the file is empty: it needs the header "${HEADER.join(',')}" and one line per rate (${EXAMPLE})`);
  if (currency === undefined) fail(lines.length, undefined, `no rates after the header (${EXAMPLE})`);
  return { file, currency: currency ?? '', entries };
}

function entryOf(fields: string[], fail: (column: number, problem: string) => never): RateEntry & { currency: string } {
  const [currency = '', market = '', category = '', rate = '', from = ''] = fields;
  if (!/^[A-Z]{3}$/.test(currency)) fail(1, `"${currency}" is not a currency: write its ISO code in capitals, e.g. USD`);
  if (market === '') fail(2, 'the market is empty: write it as Meta names it, e.g. India, Rest of Africa, Other');
  const normal = pricingCategoryOf(category);
  if (!(CARD_CATEGORIES as readonly string[]).includes(normal)) {
    fail(3, `"${category}" is not a category: write one of ${CARD_CATEGORIES.join(', ')}`);
  }
  if (!/^\d+(\.\d+)?$/.test(rate)) fail(4, `"${rate}" is not a rate: write the price per message as a decimal with a dot, e.g. 0.0118`);
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(from);
  const at = date === null ? Number.NaN : Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
  if (date === null || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== from) {
    fail(5, `"${from}" is not a date: write the day the rate takes effect as YYYY-MM-DD, e.g. 2026-10-01`);
  }
  return { currency, market, category: normal as CardCategory, rate: Number(rate), from: at };
}

/** The card's rate for a market and category at `at` (ms): the newest entry in effect then; undefined when none is. */
export function rateAt(card: RateCard, market: string, category: CardCategory, at: number): number | undefined {
  let best: RateEntry | undefined;
  const wanted = market.toLowerCase();
  for (const entry of card.entries) {
    if (entry.market.toLowerCase() !== wanted || entry.category !== category || entry.from > at) continue;
    if (best === undefined || entry.from > best.from) best = entry;
  }
  return best?.rate;
}

/**
 * A category as a card prices it: a template's category (MARKETING), a status's `pricing.category`
 * (marketing_lite is the Marketing Messages API's marketing, priced the same); undefined for one no card prices.
 */
export function cardCategoryOf(category: string): CardCategory | undefined {
  const normal = pricingCategoryOf(category) === 'marketing_lite' ? 'marketing' : pricingCategoryOf(category);
  return (CARD_CATEGORIES as readonly string[]).includes(normal) ? (normal as CardCategory) : undefined;
}
