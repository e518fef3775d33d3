import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startChild, stopChild, waitForLine } from './children.js';

/**
 * When each message POST reached the receiver's port, by the kernel's clock (`tcpdump -i lo`),
 * per phone number. The sandbox stamps an arrival when its event loop reads the request: a
 * stall of the receiver (a garbage collection, a core taken by another process) holds back
 * the requests that came during it and stamps them together, so its busiest second can run
 * over the rate where the requests themselves did not. The wire's times are free of that.
 * Capturing needs tcpdump (Debian's package) and the right to capture (root, or CAP_NET_RAW):
 * without them a capture says why not, and the bench shows its figures as n/a.
 */
export interface WireCapture {
  /** Why nothing is captured, when nothing is (no tcpdump, or no right to capture). */
  readonly unavailable: string | undefined;
  /**
   * Stops capturing: arrival times (ms since the epoch, the sandbox's clock) by phone number ID;
   * undefined when nothing was captured, or when it was stopped already.
   */
  stop(): Promise<Map<string, number[]> | undefined>;
}

/** How long tcpdump may take to say it listens. */
const START_TIMEOUT_MS = 10_000;
/** Bytes kept of each packet: the headers and the request line. */
const SNAP_BYTES = 256;

/** Starts capturing every request to `port` on the loopback interface that begins with "POST". */
export async function startWireCapture(port: number): Promise<WireCapture> {
  // The payload's first 4 bytes, after the TCP header (its length in the high nibble of byte 12): "POST".
  const filter = `tcp dst port ${port} and tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x504f5354`;
  const args = ['-i', 'lo', '-s', String(SNAP_BYTES), '--immediate-mode', '-U'];
  const version = spawnSync('tcpdump', ['--version'], { encoding: 'utf8' });
  if (version.error !== undefined) return nothingCaptured(`tcpdump cannot run (${version.error.message}): install Debian's tcpdump`);
  const dir = mkdtempSync(join(tmpdir(), 'campaign-wire-'));
  const file = join(dir, 'posts.pcap');
  const dump = startChild('tcpdump', 'tcpdump', [...args, '-w', file, filter], process.env);
  try {
    await waitForLine(dump, (line) => line.includes('listening on'), START_TIMEOUT_MS);
  } catch {
    await stopChild(dump, 1000);
    rmSync(dir, { recursive: true, force: true });
    const said = dump
      .tail()
      .split('\n')
      .filter((line) => line.startsWith('[stderr] '))
      .map((line) => line.slice('[stderr] '.length))
      .join(' ');
    return nothingCaptured(`tcpdump did not start capturing: ${said || 'it said nothing'}; it needs root or CAP_NET_RAW`);
  }
  let stopped = false;
  return {
    unavailable: undefined,
    async stop() {
      if (stopped) return undefined;
      stopped = true;
      await stopChild(dump);
      try {
        return postArrivals(readFileSync(file));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function nothingCaptured(why: string): WireCapture {
  return { unavailable: why, stop: () => Promise.resolve(undefined) };
}

/** Classic pcap files: their magic number, little-endian, with microsecond or nanosecond times. */
const PCAP_MICROS = 0xa1b2c3d4;
const PCAP_NANOS = 0xa1b23c4d;
/** Link-layer header bytes by pcap link type: Ethernet (what `-i lo` gives), Linux cooked v1 and v2. */
const LINK_HEADER_BYTES: Readonly<Record<number, number>> = { 1: 14, 113: 16, 276: 20 };
const MESSAGE_POST = /^POST \/v\d+\.\d+\/(\d+)\/messages[ ?]/;

/**
 * The message POSTs of a pcap file: each packet's time, by the phone number ID its request line
 * names. Other packets (another path, a continued segment) are left out, and so is a last record
 * cut short by the capture's end.
 */
export function postArrivals(pcap: Buffer): Map<string, number[]> {
  const byNumber = new Map<string, number[]>();
  if (pcap.length < 24) return byNumber;
  const magic = pcap.readUInt32LE(0);
  if (magic !== PCAP_MICROS && magic !== PCAP_NANOS) throw new Error('not a little-endian pcap file');
  const linkType = pcap.readUInt32LE(20);
  const linkBytes = LINK_HEADER_BYTES[linkType];
  if (linkBytes === undefined) throw new Error(`pcap link type ${linkType} is not read here (Ethernet or Linux cooked only)`);
  const fractionMs = magic === PCAP_NANOS ? 1e-6 : 1e-3;
  for (let at = 24; at + 16 <= pcap.length;) {
    const captured = pcap.readUInt32LE(at + 8);
    const packet = pcap.subarray(at + 16, at + 16 + captured);
    if (packet.length < captured) break;
    const number = messagePostNumber(packet.subarray(linkBytes));
    if (number !== undefined) {
      const times = byNumber.get(number) ?? [];
      times.push(pcap.readUInt32LE(at) * 1000 + pcap.readUInt32LE(at + 4) * fractionMs);
      byNumber.set(number, times);
    }
    at += 16 + captured;
  }
  for (const times of byNumber.values()) times.sort((a, b) => a - b);
  return byNumber;
}

/** The phone number ID of an IP packet carrying a message POST's request line, else undefined. */
function messagePostNumber(ip: Buffer): string | undefined {
  const version = (ip[0] ?? 0) >> 4;
  let tcp: Buffer;
  if (version === 4 && ip[9] === 6) tcp = ip.subarray(((ip[0] ?? 0) & 0x0f) * 4);
  else if (version === 6 && ip[6] === 6) tcp = ip.subarray(40);
  else return undefined;
  const payload = tcp.subarray(((tcp[12] ?? 0) >> 4) * 4);
  return MESSAGE_POST.exec(payload.subarray(0, 80).toString('latin1'))?.[1];
}
