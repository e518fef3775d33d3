import { afterEach, describe, expect, it, vi } from 'vitest';
import { requeueProgressPrinter, sweepProgressPrinter } from '../../workers/progress-lines.js';

describe('progress lines of the operator commands', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says nothing for a short sweep, then one line every 2 s with counts and share', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const print = sweepProgressPrinter((line) => lines.push(line));
    print({ scanned: 1000, total: 1_000_000, setAside: 1000, removed: 1000 });
    vi.setSystemTime(1999);
    print({ scanned: 2000, total: 1_000_000, setAside: 2000, removed: 2000 });
    expect(lines).toEqual([]);
    vi.setSystemTime(2000);
    print({ scanned: 450_000, total: 1_000_000, setAside: 300_000, removed: 300_500 });
    vi.setSystemTime(3000);
    print({ scanned: 460_000, total: 1_000_000, setAside: 310_000, removed: 310_500 });
    expect(lines).toEqual(['sweeping the queue: 450,000 of 1,000,000 entries looked at (45 %), 300,000 set aside, 300,500 removed']);
  });

  it('never claims more than 100 % when jobs were added during the sweep', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const print = sweepProgressPrinter((line) => lines.push(line));
    vi.setSystemTime(5000);
    print({ scanned: 1200, total: 1000, setAside: 0, removed: 0 });
    expect(lines[0]).toContain('(100 %)');
  });

  it('resume and retry: rows put back so far, of those set aside', () => {
    vi.useFakeTimers({ now: 0 });
    const lines: string[] = [];
    const print = requeueProgressPrinter((line) => lines.push(line));
    vi.setSystemTime(2500);
    print({ enqueued: 250_000, total: 1_000_000 });
    expect(lines).toEqual(['putting rows back in the queue: 250,000 of 1,000,000 (25 %)']);
  });
});
