import { isIPv4, isIPv6 } from 'node:net';

/**
 * An IP address as its bytes (4 for IPv4, 16 for IPv6), or undefined when the text is not an
 * address. Accepts a bracketed IPv6 (`[::1]`, as a URL's hostname has it) and a zone
 * (`fe80::1%eth0`). Only the standard forms are addresses here: the WHATWG URL parser has
 * already turned `http://2130706433/` or `http://0177.1/` into `127.0.0.1`, and any other
 * host name goes to the resolver, whose answers are what get checked.
 */
export function ipBytes(address: string): Uint8Array | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const unzoned = bare.split('%')[0] ?? '';
  if (isIPv4(unzoned)) return Uint8Array.from(unzoned.split('.').map(Number));
  if (isIPv6(unzoned)) return ipv6Bytes(unzoned);
  return undefined;
}

function ipv6Bytes(text: string): Uint8Array {
  const groups = hexGroups(withHexTail(text));
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** `::ffff:127.0.0.1` → `::ffff:7f00:1`: a trailing dotted quad is the last two groups. */
function withHexTail(text: string): string {
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (!tail.includes('.')) return text;
  const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
  return `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** The eight 16-bit groups, `::` expanded (the text is a valid IPv6 address: isIPv6 said so). */
function hexGroups(text: string): number[] {
  const [left = '', right] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  if (right === undefined) return parse(left);
  const head = parse(left);
  const tail = parse(right);
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The standard text of an address's bytes: dotted quad, or IPv6 groups (not compressed: only for details). */
export function ipText(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}
