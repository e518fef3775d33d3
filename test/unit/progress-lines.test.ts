import { afterEach, describe, expect, it, vi } from 'vitest';
import { ingestProgressPrinter, retryProgressPrinter } from '../../src/cli/run/progress-lines.js';

describe('progress lines of the long commands', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retry: says nothing for a short walk, then one line every 2 s with counts and share', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const print = retryProgressPrinter((line) => lines.push(line));
    print({ scanned: 1000, total: 1_000_000, requeued: 10 });
    vi.setSystemTime(1999);
    print({ scanned: 2000, total: 1_000_000, requeued: 20 });
    expect(lines).toEqual([]);
    vi.setSystemTime(2000);
    print({ scanned: 450_000, total: 1_000_000, requeued: 3_000 });
    vi.setSystemTime(3000);
    print({ scanned: 460_000, total: 1_000_000, requeued: 3_100 });
    expect(lines).toEqual(['choosing rows to retry: 450,000 of 1,000,000 looked at (45 %), 3,000 put back']);
  });

  it('send: never claims more than 100 % when the file has more rows than estimated', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const print = ingestProgressPrinter(
      () => 1000,
      (line) => lines.push(line),
    );
    vi.setSystemTime(5000);
    print(1200);
    expect(lines).toEqual(['reading the file: 1,200 of about 1,200 rows (100 %)']);
  });
});
