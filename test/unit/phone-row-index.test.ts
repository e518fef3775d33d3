import { describe, expect, it } from 'vitest';
import { PhoneRowIndex } from '../../src/campaigns/ingest/phone-row-index.js';

describe('PhoneRowIndex: the first row of each recipient', () => {
  it('keeps the first row of a number; later rows of it do not replace it', () => {
    const index = new PhoneRowIndex();
    index.setIfAbsent('+4915112345678', 3);
    index.setIfAbsent('+4915112345678', 9);
    expect(index.get('+4915112345678')).toBe(3);
    expect(index.get('+4915112345679')).toBeUndefined();
    expect(index.size).toBe(1);
  });

  it('agrees with a Map over 100,000 numbers, growing from a small start, 15-digit numbers included', () => {
    const index = new PhoneRowIndex(4);
    const reference = new Map<string, number>();
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let row = 1; row <= 100_000; row++) {
      // Numbers of 8 to 15 digits, with repeats.
      const digits = String(10_000_000 + (next() % 9_000_000)) + String(next() % 10_000_000).slice(0, next() % 8);
      const phone = `+${digits}`;
      index.setIfAbsent(phone, row);
      if (!reference.has(phone)) reference.set(phone, row);
    }
    expect(index.size).toBe(reference.size);
    const wrong = [...reference].filter(([phone, row]) => index.get(phone) !== row);
    expect(wrong).toStrictEqual([]);
    expect(index.get('+999999999999999')).toBe(reference.get('+999999999999999'));
  });

  it('refuses what is not an E.164 number rather than mixing it up with one', () => {
    const index = new PhoneRowIndex();
    expect(() => index.setIfAbsent('+1234567890123456', 1)).toThrow(RangeError);
    expect(() => index.get('+49 151')).toThrow(RangeError);
  });
});
