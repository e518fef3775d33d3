import { describe, expect, it } from 'vitest';
import { cappedKindOf, parseFrequencyCaps } from '../../src/config/frequency-caps.js';

describe('FREQUENCY_CAPS', () => {
  it('reads kinds, counts and windows in m, h and d', () => {
    expect(parseFrequencyCaps('marketing:1/24h, Marketing:3/7d,utility:5/30m,any:10/1d')).toEqual([
      { kind: 'marketing', count: 1, windowMs: 86_400_000, text: 'marketing:1/24h' },
      { kind: 'marketing', count: 3, windowMs: 7 * 86_400_000, text: 'marketing:3/7d' },
      { kind: 'utility', count: 5, windowMs: 1_800_000, text: 'utility:5/30m' },
      { kind: 'any', count: 10, windowMs: 86_400_000, text: 'any:10/1d' },
    ]);
    expect(parseFrequencyCaps('')).toEqual([]);
  });

  it.each([
    ['promo:1/24h', /"promo:1\/24h": write KIND:COUNT\/WINDOW, KIND one of marketing, utility/],
    ['marketing:1/24', /"marketing:1\/24": write KIND:COUNT\/WINDOW/],
    ['marketing:0/24h', /the count must be at least 1/],
    ['marketing:1/91d', /the window must be between 1m and 90d/],
    ['marketing:1/99999999999d', /the window must be between 1m and 90d/],
    ['any:1000001/1d', /the count must be at most 1,000,000/],
    ['marketing=1/24h', /write KIND:COUNT\/WINDOW/],
  ])('refuses %s, saying how to write it', (text, message) => {
    expect(parseFrequencyCaps(text)).toMatch(message);
  });

  it('counts a campaign as its template category or as text', () => {
    expect(cappedKindOf({ category: 'MARKETING' })).toBe('marketing');
    expect(cappedKindOf({ category: 'UTILITY' })).toBe('utility');
    expect(cappedKindOf({ text: { body: 'hi' } })).toBe('text');
    expect(cappedKindOf({})).toBeUndefined();
  });
});
