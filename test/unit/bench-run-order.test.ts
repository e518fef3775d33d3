import { describe, expect, it } from 'vitest';
import { runOrder } from '../../bench/support/run-order.js';

const SIDES = ['ours', 'bare', 'webhooks', 'bare-webhooks', 'scraped'] as const;

/** Who runs right before `side` in each of the first `runs` runs ('' when it runs first). */
function predecessors(side: string, runs: number): string[] {
  return Array.from({ length: runs }, (_, run) => {
    const order = runOrder(SIDES, run);
    return order[order.indexOf(side as (typeof SIDES)[number]) - 1] ?? '';
  });
}

describe('the order of a bench run’s sides', () => {
  it('runs every side once in each run', () => {
    for (let run = 0; run < 8; run++) expect([...runOrder(SIDES, run)].sort()).toEqual([...SIDES].sort());
  });

  it('puts another side first and another last in each of three runs', () => {
    const orders = [0, 1, 2].map((run) => runOrder(SIDES, run));
    expect(new Set(orders.map((order) => order[0])).size).toBe(3);
    expect(new Set(orders.map((order) => order.at(-1))).size).toBe(3);
  });

  it('gives no side the same side before it in each of three runs', () => {
    for (const side of SIDES) expect(new Set(predecessors(side, 3)).size).toBeGreaterThan(1);
  });

  it('alternates two sides, and walks four so that each run ends with another', () => {
    expect([0, 1, 2].map((run) => runOrder(['ours', 'bare'], run))).toEqual([
      ['ours', 'bare'],
      ['bare', 'ours'],
      ['ours', 'bare'],
    ]);
    const four = ['a', 'b', 'c', 'd'];
    expect(new Set([0, 1, 2, 3].map((run) => runOrder(four, run).at(-1))).size).toBe(4);
    for (let run = 0; run < 4; run++) expect([...runOrder(four, run)].sort()).toEqual(four);
  });
});
