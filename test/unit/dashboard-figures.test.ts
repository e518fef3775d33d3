import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignStatus } from '../../src/campaigns/campaign.js';
import type { CampaignTimeline } from '../../src/campaigns/report/campaign-timeline.js';
import { campaignCharts } from '../../src/dashboard/campaign-charts.js';
import { campaignPage } from '../../src/dashboard/campaign-page.js';
import { campaignsPage } from '../../src/dashboard/campaigns-page.js';
import { campaignView } from '../../src/dashboard/campaign-view.js';
import { costLine, when } from '../../src/dashboard/browser/plan-lines.js';
import { defaultRateCardFile } from '../../src/pricing/rate-card.js';
import { detailOf, extrasOf, statusOf, tallyOf } from './dashboard-fixtures.js';

/**
 * The pages' figures agree with each other and with the ledger: the funnel starts from the rows
 * queued to send, the error bars are the errors table's rows, the cost says which rates priced
 * it, and every time is written in UTC with its zone.
 */
function timelineOf(status: CampaignStatus, replied = 0): CampaignTimeline {
  const { sent, delivered, read, failed } = status.counts;
  return { buckets: [], counts: { sent, delivered, read, failed, replied }, now: Date.UTC(2026, 10, 29, 14) };
}

/** The shipped rate card's file name, as the New campaign page's form names it for its script. */
const EXAMPLE_CARD = basename(defaultRateCardFile());

describe('the funnel', () => {
  it('starts from the rows queued to send: a row rejected or skipped when the file was read is not queued', () => {
    // 400 rows read: 3 rejected, 1 skipped (a duplicate): the dry run said 396 would be sent.
    const status = statusOf('c', {}, { total: 400, rejected: 3, skipped: 1, queued: 290, sent: 100, delivered: 80, read: 40, failed: 6 });
    const funnel = campaignCharts(status, timelineOf(status, 7), undefined).funnel;
    expect(funnel).toEqual([
      { stage: 'queued', rows: 396 },
      { stage: 'sent', rows: 100 },
      { stage: 'delivered', rows: 80 },
      { stage: 'read', rows: 40 },
      { stage: 'replied', rows: 7 },
    ]);
  });
});

describe('errors by code: the bars and the table', () => {
  it('are one count: the bars carry every row of the table (status, code, rows, detail) and its scope', () => {
    const status = statusOf('c', {}, { total: 12, failed: 4, skipped: 8 });
    const tally = tallyOf(
      [
        { status: 'skipped', code: 'DUPLICATE_PHONE', rows: 8, example: 'same number as row 1, which is the one sent' },
        { status: 'failed', code: '131026', rows: 4, example: 'Message undeliverable' },
      ],
      true,
      12,
    );
    const charts = campaignCharts(status, timelineOf(status), tally);
    const page = campaignPage({ detail: detailOf(status, extrasOf(), tally), csrfToken: 't', charts }).value;
    const table = [
      ...page.matchAll(/<tr><td>(\w+)<\/td><td><code>(\w+)<\/code><\/td><td class="n">(\d+)<\/td><td class="detail">([^<]*)</g),
    ].map((m) => ({ status: m[1], code: m[2], rows: Number(m[3]), example: m[4] }));
    expect(table).toHaveLength(2);
    expect(charts.errors).toEqual(table);
    const scope = /<span data-errors-scope>([^<]*)<\/span>/.exec(page)?.[1];
    expect(scope).toBe('Counted over all 12 rows at 2026-01-01 12:00:00 UTC.');
    expect(charts.errorsScope).toBe(scope);
  });
});

describe('the cost on the New campaign page', () => {
  const plan = (rateCard: string | null | undefined) => ({ cost: { total: 4.72, currency: 'USD' }, costReason: null, rateCard });
  const results = { costLine: (p: Parameters<typeof costLine>[0]) => costLine(p, EXAMPLE_CARD) };

  it('says when its rates are the example card shipped with campaign-worker, and how to set the real ones', () => {
    expect(results.costLine(plan(defaultRateCardFile()))).toBe(
      "estimated cost: 4.72 USD at most; rates from the example rate card shipped with campaign-worker, not Meta's rates: " +
        'set RATE_CARD_FILE (docs/costs.md)',
    );
    expect(results.costLine(plan('rate-card.example.csv'))).toContain('the example rate card shipped with campaign-worker');
  });

  it("names the operator's card by its file name, never the server's path", () => {
    expect(results.costLine(plan('/srv/cards/meta-usd-2026q4.csv'))).toBe(
      'estimated cost: 4.72 USD at most; rates from meta-usd-2026q4.csv (RATE_CARD_FILE)',
    );
    expect(results.costLine(plan(undefined))).toContain('rates from the rate card in RATE_CARD_FILE, else the example card');
    expect(results.costLine({ cost: null, costReason: 'no rate for Narnia' })).toBe('estimated cost: not known (no rate for Narnia)');
  });
});

describe('times on the pages', () => {
  const UTC_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

  it("the dry run's times in UTC with the zone, whatever the browser's locale", () => {
    expect(when('2026-11-29T14:05:00.000Z')).toBe('2026-11-29 14:05:00 UTC');
    expect(when('2026-11-29T15:05:00+01:00')).toBe('2026-11-29 14:05:00 UTC');
  });

  it('the campaigns list says when it was read as every other time on the pages', () => {
    const view = campaignView(statusOf('c', { createdAt: Date.UTC(2026, 10, 29, 9) }, { total: 1, queued: 1 }), extrasOf());
    const page = campaignsPage([view], Date.UTC(2026, 10, 29, 14, 5)).value;
    expect(/Read at <span id="updated">([^<]*)<\/span>/.exec(page)?.[1]).toMatch(UTC_TIME);
    expect(view.fields.createdAt).toMatch(UTC_TIME);
  });

  it("no page script writes a time in the browser's locale format (it has no zone)", () => {
    const browser = join(import.meta.dirname, '../../src/dashboard/browser');
    const sources = readdirSync(browser, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    expect(sources).toContain(join('scripts', 'new-campaign.ts'));
    for (const script of sources.map((name) => readFileSync(join(browser, name), 'utf8'))) {
      expect(script).not.toMatch(/toLocale(Date|Time)?String\(\)/);
      expect(script).not.toMatch(/toLocaleString\(\)/);
    }
  });
});
