import { describe, expect, it } from 'vitest';
import { newestFirst, pageStartAfter } from '../../src/campaigns/campaign-order.js';

describe('the order of every campaign list', () => {
  it('is the ledger creation order reversed, leaving the given list as it was', () => {
    const created = ['c20261125-1747-ffffff', 'spring', 'c20261125-1747-000001'];
    expect(newestFirst(created)).toStrictEqual(['c20261125-1747-000001', 'spring', 'c20261125-1747-ffffff']);
    expect(created[0]).toBe('c20261125-1747-ffffff');
  });

  it('a page starts after its cursor; a cursor naming no campaign gives an empty page, never the first again', () => {
    const ids = ['c3', 'c2', 'c1'];
    expect(pageStartAfter(ids, undefined)).toBe(0);
    expect(pageStartAfter(ids, 'c3')).toBe(1);
    expect(pageStartAfter(ids, 'c1')).toBe(3);
    expect(pageStartAfter(ids, 'gone')).toBe(3);
  });
});
