import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DigestSet } from '../../src/sandbox/digest-set.js';

function digestOf(text: string): [number, number] {
  const hash = createHash('sha256').update(text).digest();
  return [hash.readUInt32BE(0), hash.readUInt32BE(4)];
}

describe('DigestSet', () => {
  it('adds a digest once and answers whether it holds one', () => {
    const set = new DigestSet();
    expect(set.add(1, 2)).toBe(true);
    expect(set.add(1, 2)).toBe(false);
    expect(set.add(2, 1)).toBe(true);
    expect(set.add(0xffff_ffff, 0xffff_ffff)).toBe(true);
    expect(set.has(0xffff_ffff, 0xffff_ffff)).toBe(true);
    expect(set.has(1, 3)).toBe(false);
    expect(set.size).toBe(3);
  });

  it('keeps a digest of all zeros apart from an empty slot', () => {
    const set = new DigestSet();
    expect(set.has(0, 0)).toBe(false);
    expect(set.add(0, 0)).toBe(true);
    expect(set.has(0, 0)).toBe(true);
    expect(set.add(0, 0)).toBe(false);
    expect(set.size).toBe(1);
  });

  it('agrees with a Set of strings over 100,000 digests with repeats, across its growth', () => {
    const set = new DigestSet();
    const reference = new Set<string>();
    let repeatsSeen = 0;
    let disagreements = 0;
    for (let i = 0; i < 100_000; i++) {
      // Every fifth send repeats an earlier one.
      const text = i % 5 === 4 ? `send-${(i * 7919) % i}` : `send-${i}`;
      const [high, low] = digestOf(text);
      const added = set.add(high, low);
      if (added === reference.has(text)) disagreements += 1;
      if (!added) repeatsSeen += 1;
      reference.add(text);
    }
    expect(disagreements).toBe(0);
    expect(set.size).toBe(reference.size);
    expect(repeatsSeen).toBe(100_000 - reference.size);
    for (const text of ['send-0', 'send-99998', 'send-12345']) expect(set.has(...digestOf(text))).toBe(true);
    expect(set.has(...digestOf('never-sent'))).toBe(false);
  });

  it('colliding low halves (the probe index) stay distinct entries', () => {
    const set = new DigestSet();
    const added = [];
    for (let high = 1; high <= 2000; high++) added.push(set.add(high, 42));
    for (let high = 1; high <= 2000; high++) added.push(set.add(high, 42));
    expect(added.filter(Boolean)).toHaveLength(2000);
    expect(added.slice(0, 2000).every(Boolean)).toBe(true);
    expect(set.size).toBe(2000);
  });

  it('forgets everything on clear', () => {
    const set = new DigestSet();
    for (let i = 1; i <= 10_000; i++) set.add(i, i);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.has(5, 5)).toBe(false);
    expect(set.add(5, 5)).toBe(true);
  });
});
