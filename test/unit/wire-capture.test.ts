import { describe, expect, it } from 'vitest';
import { postArrivals } from '../../bench/support/wire-capture.js';

const ETHERNET = 1;
const MICROS = 0xa1b2c3d4;
const NANOS = 0xa1b23c4d;

function fileHeader(magic: number, linkType: number): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(magic, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(linkType, 20);
  return header;
}

/** An Ethernet frame of an IPv4 (or IPv6) TCP segment whose payload is `payload`, TCP options included. */
function frame(payload: string, ipVersion: 4 | 6 = 4): Buffer {
  const ethernet = Buffer.alloc(14);
  ethernet.writeUInt16BE(ipVersion === 4 ? 0x0800 : 0x86dd, 12);
  const ip = Buffer.alloc(ipVersion === 4 ? 20 : 40);
  if (ipVersion === 4) {
    ip[0] = 0x45;
    ip[9] = 6;
  } else {
    ip[0] = 0x60;
    ip[6] = 6;
  }
  // A 32-byte TCP header (12 bytes of options), as Linux sends with timestamps.
  const tcp = Buffer.alloc(32);
  tcp[12] = 8 << 4;
  return Buffer.concat([ethernet, ip, tcp, Buffer.from(payload, 'latin1')]);
}

function record(ms: number, data: Buffer, nanos = false, cutTo = data.length): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32LE(Math.floor(ms / 1000), 0);
  const fraction = ms % 1000;
  header.writeUInt32LE(Math.round(nanos ? fraction * 1e6 : fraction * 1e3), 4);
  header.writeUInt32LE(data.length, 8);
  header.writeUInt32LE(data.length, 12);
  return Buffer.concat([header, data.subarray(0, cutTo)]);
}

const post = (number: string) => `POST /v23.0/${number}/messages HTTP/1.1\r\nhost: 127.0.0.1\r\n`;

describe('postArrivals', () => {
  it('times each message POST by the number it names, and leaves other requests out', () => {
    const pcap = Buffer.concat([
      fileHeader(MICROS, ETHERNET),
      record(1_764_000_000_250.5, frame(post('111'))),
      record(1_764_000_000_251, frame(post('222'), 6)),
      record(1_764_000_000_252, frame('POST /_sandbox/reset HTTP/1.1\r\n')),
      record(1_764_000_000_253, frame('GET /v23.0/111/messages HTTP/1.1\r\n')),
      record(1_764_000_000_249, frame(post('111'))),
    ]);
    const arrivals = postArrivals(pcap);
    expect([...arrivals.keys()].sort()).toEqual(['111', '222']);
    // In time order, to the microsecond.
    expect(arrivals.get('111')).toEqual([1_764_000_000_249, 1_764_000_000_250.5]);
    expect(arrivals.get('222')).toEqual([1_764_000_000_251]);
  });

  it('reads nanosecond files, and drops a last record the capture cut short', () => {
    const pcap = Buffer.concat([
      fileHeader(NANOS, ETHERNET),
      record(1_764_000_000_250.25, frame(post('111')), true),
      record(1_764_000_000_260, frame(post('111')), true, 30),
    ]);
    expect(postArrivals(pcap).get('111')).toEqual([1_764_000_000_250.25]);
  });

  it('refuses a file it cannot read rather than count nothing', () => {
    expect(() => postArrivals(Buffer.concat([fileHeader(0x0a0d0d0a, ETHERNET), Buffer.alloc(16)]))).toThrow(/not a little-endian pcap/);
    expect(() => postArrivals(fileHeader(MICROS, 105))).toThrow(/link type 105/);
  });

  it('finds nothing in an empty capture', () => {
    expect(postArrivals(fileHeader(MICROS, ETHERNET)).size).toBe(0);
    expect(postArrivals(Buffer.alloc(0)).size).toBe(0);
  });
});
