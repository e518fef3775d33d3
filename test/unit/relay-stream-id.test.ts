import { describe, expect, it } from 'vitest';
import { compareStreamIds, nextStreamId, streamIdAt } from '../../src/redis/relay/stream-id.js';

describe('stream entry IDs', () => {
  it('compare as numbers, not as text', () => {
    expect(compareStreamIds('999-0', '1000-0')).toBe(-1);
    expect(compareStreamIds('1000-10', '1000-9')).toBe(1);
    expect(compareStreamIds('1000-9', '1000-9')).toBe(0);
    expect(compareStreamIds('18446744073709551615-1', '18446744073709551615-0')).toBe(1);
  });

  it('step to the lowest ID after, and start at a time', () => {
    expect(nextStreamId('1712000000000-0')).toBe('1712000000000-1');
    expect(nextStreamId('5-18446744073709551614')).toBe('5-18446744073709551615');
    expect(streamIdAt(1712000000000.7)).toBe('1712000000000-0');
    expect(streamIdAt(-5)).toBe('0-0');
  });

  it('refuse what is not an ID', () => {
    expect(() => compareStreamIds('abc', '1-0')).toThrow(/not a stream entry ID: abc/);
  });
});
