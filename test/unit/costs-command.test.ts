import { describe, expect, it } from 'vitest';
import { sinceOf, type CostsView } from '../../src/app/costs.js';
import { costsText } from '../../src/cli/run/costs.js';

/** `campaign costs`: the period it asks Meta about, and the table beside the ledger's figures. */
describe('campaign costs', () => {
  const now = Date.parse('2026-11-26T01:00:00Z');

  it('--since: a day (UTC) or a time with offset within 90 days; default the first day of the month', () => {
    expect(new Date(sinceOf(undefined, now)).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(new Date(sinceOf('2026-10-01', now)).toISOString()).toBe('2026-10-01T00:00:00.000Z');
    expect(new Date(sinceOf('2026-11-20T09:00:00+02:00', now)).toISOString()).toBe('2026-11-20T07:00:00.000Z');
    for (const bad of ['2026-08-01', '2026-11-27', '2026-11-20T09:00:00', 'last week', '2026-02-30']) {
      expect(() => sinceOf(bad, now), bad).toThrow(/^--since ".*": give a day \(2026-11-01\) or a time with offset in the last 90 days/);
    }
  });

  it("shows Meta's messages and cost beside the ledger's, by category, and what the card lacks", () => {
    const view: CostsView = {
      since: '2026-11-01T00:00:00.000Z',
      until: '2026-11-26T01:00:00.000Z',
      currency: 'USD',
      rateCard: 'rates.csv',
      charged: {
        messages: 5,
        amount: 0.1,
        byCategory: [
          { category: 'marketing', messages: 4, amount: 0.09 },
          { category: 'utility', messages: 1, amount: 0.01 },
        ],
      },
      estimated: {
        messages: 4,
        amount: null,
        byCategory: [
          { category: 'marketing', messages: 3, amount: 0.07 },
          { category: 'service', messages: 1, amount: null },
        ],
        missing: ['Other service'],
      },
    };
    expect(costsText(view).split('\n')).toEqual([
      'Costs 2026-11-01T00:00:00.000Z to 2026-11-26T01:00:00.000Z (USD; rates from rates.csv)',
      '  category                     Meta: messages      charged   ledger: billable      by card',
      '  marketing                                 4       0.0900                  3       0.0700',
      '  service                                   0       0.0000                  1            ?',
      '  utility                                   1       0.0100                  0       0.0000',
      '  total                                     5       0.1000                  4            ?',
      '  the rate card has no rate for: Other service',
      "  Meta's figures are approximate and may lag by hours; the ledger counts rows delivered in the period.",
    ]);
  });
});
