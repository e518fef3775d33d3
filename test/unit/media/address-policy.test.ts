import { describe, expect, it } from 'vitest';
import { refusedAddressReason } from '../../../src/media/address-policy.js';
import { ipBytes, ipText } from '../../../src/media/ip-address.js';

/** The addresses a media download may not connect to: every non-public block, in every form an address can take. */
describe('refusedAddressReason: IPv4', () => {
  it.each([
    ['0.0.0.0', 'unspecified', '0.0.0.0/8'],
    ['0.1.2.3', 'unspecified', '0.0.0.0/8'],
    ['10.0.0.1', 'private', '10.0.0.0/8'],
    ['10.255.255.255', 'private', '10.0.0.0/8'],
    ['100.64.0.1', 'carrier-grade NAT', '100.64.0.0/10'],
    ['100.127.255.254', 'carrier-grade NAT', '100.64.0.0/10'],
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.255.0.9', 'loopback', '127.0.0.0/8'],
    ['169.254.169.254', 'link-local', '169.254.0.0/16'],
    ['172.16.0.1', 'private', '172.16.0.0/12'],
    ['172.31.255.255', 'private', '172.16.0.0/12'],
    ['192.0.0.8', 'IETF', '192.0.0.0/24'],
    ['192.0.2.10', 'documentation', '192.0.2.0/24'],
    ['192.88.99.1', '6to4 relay', '192.88.99.0/24'],
    ['192.168.1.1', 'private', '192.168.0.0/16'],
    ['198.18.0.1', 'benchmarking', '198.18.0.0/15'],
    ['198.19.255.255', 'benchmarking', '198.18.0.0/15'],
    ['198.51.100.7', 'documentation', '198.51.100.0/24'],
    ['203.0.113.9', 'documentation', '203.0.113.0/24'],
    ['224.0.0.1', 'multicast', '224.0.0.0/4'],
    ['239.255.255.250', 'multicast', '224.0.0.0/4'],
    ['240.0.0.1', 'reserved', '240.0.0.0/4'],
    ['255.255.255.255', 'reserved', '240.0.0.0/4'],
  ])('%s is refused: %s (%s)', (address, label, block) => {
    const reason = refusedAddressReason(address);
    expect(reason).toContain(address);
    expect(reason).toContain(label);
    expect(reason).toContain(block);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.169.0.1',
    '223.255.255.255',
  ])('%s (public, or just outside a block) is allowed', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });
});

describe('refusedAddressReason: IPv6', () => {
  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard'],
    ['64:ff9b:1::1', 'NAT64'],
  ])('%s is refused (%s)', (address, label) => {
    expect(refusedAddressReason(address)).toContain(label);
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['[::ffff:7f00:1]', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped', '10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped', '169.254.169.254', 'link-local'],
    ['::ffff:0.0.0.0', 'IPv4-mapped', '0.0.0.0', 'unspecified'],
    ['0:0:0:0:0:ffff:c0a8:101', 'IPv4-mapped', '192.168.1.1', 'private'],
    ['64:ff9b::a00:1', 'NAT64', '10.0.0.1', 'private'],
    ['64:ff9b::127.0.0.1', 'NAT64', '127.0.0.1', 'loopback'],
    ['2002:c0a8:101::1', '6to4', '192.168.1.1', 'private'],
    ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'],
  ])('%s embeds an IPv4 address and is judged by it (%s form of %s, %s)', (address, form, inner, label) => {
    const reason = refusedAddressReason(address);
    expect(reason).toContain(`${form} form of ${inner}`);
    expect(reason).toContain(label);
  });

  it.each([
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:4860:4860::8888',
  ])('%s (public) is allowed', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });
});

describe('refusedAddressReason: what is not an address', () => {
  it.each(['localhost', 'example.com', '2130706433', '0x7f.1', '', '127.1'])(
    '"%s" is refused: only resolved addresses are judged',
    (text) => {
      expect(refusedAddressReason(text)).toMatch(/is not an IP address/);
    },
  );
});

describe('ipBytes', () => {
  it('reads IPv4, IPv6 (compressed, bracketed, zoned, with a dotted tail) into bytes', () => {
    expect([...(ipBytes('192.168.1.2') ?? [])]).toEqual([192, 168, 1, 2]);
    expect(ipText(ipBytes('::1') ?? new Uint8Array())).toBe('0:0:0:0:0:0:0:1');
    expect(ipText(ipBytes('[2001:db8::ff00:42:8329]') ?? new Uint8Array())).toBe('2001:db8:0:0:0:ff00:42:8329');
    expect(ipText(ipBytes('::ffff:192.0.2.128') ?? new Uint8Array())).toBe('0:0:0:0:0:ffff:c000:280');
    expect(ipText(ipBytes('fe80::1%eth0') ?? new Uint8Array())).toBe('fe80:0:0:0:0:0:0:1');
    expect(ipBytes('1::')?.length).toBe(16);
  });

  it('is undefined for names and for the short or numeric IPv4 forms a URL parser (not this) normalises', () => {
    for (const text of ['example.com', '127.1', '2130706433', '0177.0.0.1', '1.2.3.256', ':::']) expect(ipBytes(text)).toBeUndefined();
  });
});
