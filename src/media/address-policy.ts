import { ipBytes, ipText } from './ip-address.js';

/**
 * Which addresses a media download may connect to. A media URL is chosen by whoever calls the
 * API (or writes the CSV), and the worker fetches it from inside our network: without this, a
 * URL could read the cloud's metadata service (169.254.169.254, link-local), Redis, or any internal page,
 * and the error detail would tell what is there (server-side request forgery). So every
 * address that is not globally routable is refused: the special-purpose blocks of IANA's
 * registries (RFC 6890 and its updates), and IPv6 forms that embed an IPv4 address are judged
 * by that address.
 */
interface Block {
  bytes: Uint8Array;
  prefix: number;
  text: string;
  /** With its article: "a loopback". */
  label: string;
}

function block(cidr: string, label: string): Block {
  const [address = '', prefix = ''] = cidr.split('/');
  const bytes = ipBytes(address);
  if (bytes === undefined) throw new Error(`not an address: ${cidr}`);
  return { bytes, prefix: Number(prefix), text: cidr, label };
}

const IPV4_BLOCKS: readonly Block[] = [
  block('0.0.0.0/8', 'an unspecified ("this network")'),
  block('10.0.0.0/8', 'a private'),
  block('100.64.0.0/10', 'a carrier-grade NAT (shared)'),
  block('127.0.0.0/8', 'a loopback'),
  block('169.254.0.0/16', 'a link-local'),
  block('172.16.0.0/12', 'a private'),
  block('192.0.0.0/24', 'an IETF protocol-assignment'),
  block('192.0.2.0/24', 'a documentation (TEST-NET-1)'),
  block('192.88.99.0/24', 'a 6to4 relay anycast'),
  block('192.168.0.0/16', 'a private'),
  block('198.18.0.0/15', 'a benchmarking'),
  block('198.51.100.0/24', 'a documentation (TEST-NET-2)'),
  block('203.0.113.0/24', 'a documentation (TEST-NET-3)'),
  block('224.0.0.0/4', 'a multicast'),
  block('240.0.0.0/4', 'a reserved (and broadcast)'),
];

const IPV6_BLOCKS: readonly Block[] = [
  block('::/128', 'an unspecified'),
  block('::1/128', 'a loopback'),
  block('::/96', 'an IPv4-compatible (deprecated)'),
  block('64:ff9b:1::/48', 'a local-use NAT64'),
  block('100::/64', 'a discard-only'),
  block('2001::/23', 'an IETF protocol-assignment (Teredo, benchmarking, ORCHID)'),
  block('2001:db8::/32', 'a documentation'),
  block('3fff::/20', 'a documentation'),
  block('fc00::/7', 'a unique-local'),
  block('fe80::/10', 'a link-local'),
  block('fec0::/10', 'a site-local (deprecated)'),
  block('ff00::/8', 'a multicast'),
];

/** IPv6 prefixes whose addresses carry an IPv4 address, and where it sits (byte offset). */
const EMBEDDING: readonly { block: Block; offset: number; form: string }[] = [
  { block: block('::ffff:0:0/96', 'IPv4-mapped'), offset: 12, form: 'IPv4-mapped' },
  { block: block('64:ff9b::/96', 'NAT64'), offset: 12, form: 'NAT64' },
  { block: block('2002::/16', '6to4'), offset: 2, form: '6to4' },
];

function inBlock(bytes: Uint8Array, { bytes: base, prefix }: Block): boolean {
  if (bytes.length !== base.length) return false;
  const whole = Math.floor(prefix / 8);
  for (let i = 0; i < whole; i++) if (bytes[i] !== base[i]) return false;
  const rest = prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((base[whole] ?? 0) & mask);
}

/**
 * Why the address may not be connected to ("127.0.0.1 is a loopback address (127.0.0.0/8)"),
 * or undefined when it is a public one. Text that is not an IP address is refused too: only
 * resolved addresses are judged here.
 */
export function refusedAddressReason(address: string): string | undefined {
  const bytes = ipBytes(address);
  if (bytes === undefined) return `${address.slice(0, 100)} is not an IP address`;
  if (bytes.length === 4) {
    const found = blockOf(bytes, IPV4_BLOCKS);
    return found === undefined ? undefined : `${address} is ${described(found)}`;
  }
  for (const { block: embedding, offset, form } of EMBEDDING) {
    if (!inBlock(bytes, embedding)) continue;
    const inner = bytes.subarray(offset, offset + 4);
    const found = blockOf(inner, IPV4_BLOCKS);
    return found === undefined ? undefined : `${address} is the ${form} form of ${ipText(inner)}, ${described(found)}`;
  }
  const found = blockOf(bytes, IPV6_BLOCKS);
  return found === undefined ? undefined : `${address} is ${described(found)}`;
}

const blockOf = (bytes: Uint8Array, blocks: readonly Block[]): Block | undefined => blocks.find((candidate) => inBlock(bytes, candidate));

/** "a loopback address (127.0.0.0/8)". */
const described = (found: Block): string => `${found.label} address (${found.text})`;
