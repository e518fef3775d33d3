import { describe, expect, it } from 'vitest';
import { LoginThrottle, throttledAddressOf, type LoginAttemptStore } from '../../src/dashboard/login-throttle.js';
import { silentLogger } from '../../src/logging/logger.js';

describe('throttledAddressOf', () => {
  it.each([
    ['an IPv4 address as it is', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped address as its IPv4 address', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address by its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['a compressed one', '2001:db8::1', '2001:db8:0:0::/64'],
    ['one with leading zeros and upper case', '2001:0DB8:0001:0002::1', '2001:db8:1:2::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['one with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['anything else as it is', 'not an address', 'not an address'],
  ])('counts %s', (_what, ip, expected) => {
    expect(throttledAddressOf(ip)).toBe(expected);
  });

  it('gives every address of one /64 the same count, and another /64 its own', () => {
    expect(throttledAddressOf('2001:db8:1:2::1')).toBe(throttledAddressOf('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(throttledAddressOf('2001:db8:1:2::1')).not.toBe(throttledAddressOf('2001:db8:1:3::1'));
  });
});

describe('LoginThrottle', () => {
  const store: LoginAttemptStore = { count: () => Promise.resolve({ refused: undefined, reached: { address: false, user: false } }) };

  it.each([
    ['window', { windowMs: 0 }],
    ['address', { failuresPerAddress: 0.5 }],
    ['user', { failuresPerUser: -1 }],
  ])('refuses a %s limit that is not a whole number >= 1', (what, options) => {
    expect(() => new LoginThrottle({ store, logger: silentLogger(), dashboardUser: 'ops', ...options })).toThrow(new RegExp(`${what}`));
  });

  it('says how long a lock lasts in whole seconds, at least 1, until the end of the window', async () => {
    let now = 120_000 + 59_001;
    const locked: LoginAttemptStore = { count: () => Promise.resolve({ refused: 'address' }) };
    const throttle = new LoginThrottle({ store: locked, logger: silentLogger(), dashboardUser: 'ops', now: () => now });
    expect(await throttle.login('203.0.113.7', 'ops', true)).toEqual({ throttled: 'address', retryAfterSeconds: 1 });
    now = 120_000;
    expect(await throttle.login('203.0.113.7', 'ops', true)).toEqual({ throttled: 'address', retryAfterSeconds: 60 });
  });
});
