import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedAddressReason } from '../../../src/media/address-policy.js';
import type { Resolver } from '../../../src/media/guarded-lookup.js';
import { MediaFetcher, type MediaFetcherOptions } from '../../../src/media/media-fetch.js';
import { mediaBytes } from '../../unit/media/media-bytes.js';
import { MediaServer } from './media-server.js';

/**
 * MediaFetcher against a real HTTP server on 127.0.0.1. Loopback is private, so a test that
 * exercises the address checks gives a policy that lets 127.0.0.1 alone through (standing for a
 * public host) and refuses every other address as production does; names resolve through a
 * table, and the socket connects to whatever the lookup answered.
 */
let server: MediaServer;
let fetcher: MediaFetcher | undefined;

beforeEach(async () => {
  server = await new MediaServer().start();
});

afterEach(async () => {
  await fetcher?.close();
  fetcher = undefined;
  await server.close();
});

const onlyThisLoopback = (address: string) => (address === '127.0.0.1' ? undefined : refusedAddressReason(address));

const names =
  (table: Record<string, string[]>): Resolver =>
  (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
  };

function open(options: Partial<MediaFetcherOptions> = {}): MediaFetcher {
  fetcher = new MediaFetcher({ allowPrivateHosts: true, ...options });
  return fetcher;
}

describe('MediaFetcher over HTTP', () => {
  it('reads the whole file and the Content-Type it was served with', async () => {
    server.file('/banner.png', mediaBytes.png(5000), 'image/png');
    expect(await open().fetch(server.url('/banner.png'), 10_000)).toEqual({
      ok: true,
      bytes: mediaBytes.png(5000),
      declaredType: 'image/png',
      from: server.url('/banner.png'),
    });
  });

  it('an error status is MEDIA_UNREACHABLE naming it', async () => {
    const result = await open().fetch(server.url('/missing.png'), 10_000);
    expect(result).toEqual({
      ok: false,
      code: 'MEDIA_UNREACHABLE',
      detail: `${server.url('/missing.png')} answered HTTP 404: check that the link opens the file without logging in`,
    });
  });

  it('a Content-Length above the cap is refused before the body is read', async () => {
    server.file('/huge.mp4', mediaBytes.mp4(200_000), 'video/mp4');
    const result = await open().fetch(server.url('/huge.mp4'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    expect(!result.ok && result.detail).toContain('200000 bytes (Content-Length)');
  });

  it('a body without a length stops being read past the cap, and its connection is dropped', async () => {
    server.endless('/endless.png');
    const result = await open().fetch(server.url('/endless.png'), 100_000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    expect(!result.ok && result.detail).toContain('more than 100000 bytes');
    await expect.poll(() => server.cutShort.has('/endless.png')).toBe(true);
  });

  it('follows 5 redirects (relative ones too), refuses a 6th', async () => {
    server.file('/final.png', mediaBytes.png(), 'image/png');
    for (let i = 1; i <= 6; i++) server.redirect(`/hop${i}`, i === 1 ? '/final.png' : server.url(`/hop${i - 1}`), i % 2 === 0 ? 301 : 307);
    expect(await open().fetch(server.url('/hop5'), 1000)).toMatchObject({ ok: true, from: server.url('/final.png') });
    const result = await open().fetch(server.url('/hop6'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('redirected more than 5 times');
  });

  it.each([
    ['file:///etc/passwd', 'is a file: URL'],
    ['https://admin:hunter2@files.example/a.png', 'carries a user name or password'],
  ])('a redirect to %s is refused', async (location, reason) => {
    server.redirect('/go', location);
    const result = await open().fetch(server.url('/go'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain(reason);
    expect(!result.ok && result.detail).not.toContain('hunter2');
  });

  it('a server that stops sending is cut off at the deadline', async () => {
    server.stall('/slow.png');
    const result = await open({ timeoutMs: 300 }).fetch(server.url('/slow.png'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('did not send the whole file within 0.3 s');
  });

  it('an unknown host and a closed port are MEDIA_UNREACHABLE saying which', async () => {
    const unknown = await open({ allowPrivateHosts: false, resolve: names({}) }).fetch('https://nowhere.test/a.png', 1000);
    expect(!unknown.ok && unknown.detail).toContain('the host nowhere.test was not found (DNS: ENOTFOUND)');
    const closed = await open().fetch(`http://127.0.0.1:${await closedPort()}/a.png`, 1000);
    expect(!closed.ok && closed.detail).toContain('127.0.0.1 refused the connection');
  });
});

describe('MediaFetcher: private addresses', () => {
  it('refuses a link to 127.0.0.1 without allowPrivateHosts, naming the address, and sends nothing', async () => {
    server.file('/a.png', mediaBytes.png(), 'image/png');
    const result = await open({ allowPrivateHosts: false }).fetch(server.url('/a.png'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('127.0.0.1 is a loopback address (127.0.0.0/8)');
    expect(server.hits.size).toBe(0);
  });

  it('refuses a name that resolves to a private address, at connect time, naming both', async () => {
    const result = await open({ allowPrivateHosts: false, resolve: names({ 'media.test': ['127.0.0.1'] }) }).fetch(
      `http://media.test:${server.port}/a.png`,
      1000,
    );
    expect(!result.ok && result.detail).toContain('media.test resolves to a refused address: 127.0.0.1 is a loopback address');
    expect(server.hits.size).toBe(0);
  });

  it('a name is fetched from the address its lookup answered (here the one address the test policy lets through)', async () => {
    server.file('/a.png', mediaBytes.png(), 'image/png');
    const resolve = names({ 'media.test': ['127.0.0.1'] });
    const result = await open({ allowPrivateHosts: false, addressPolicy: onlyThisLoopback, resolve }).fetch(
      `http://media.test:${server.port}/a.png`,
      1000,
    );
    expect(result).toMatchObject({ ok: true });
    expect(server.hits.get('/a.png')).toBe(1);
  });

  it.each([
    ['an IP literal', (port: number) => `http://127.0.0.2:${port}/a.png`, '127.0.0.2 is a loopback address'],
    ['the metadata service', () => 'http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['an IPv4-mapped IPv6 literal', (port: number) => `http://[::ffff:10.0.0.1]:${port}/a.png`, 'IPv4-mapped form of 10.0.0.1'],
    [
      'a name resolving to a private address',
      (port: number) => `http://internal.test:${port}/a.png`,
      'internal.test resolves to a refused address: 10.9.8.7',
    ],
    [
      'a name with one private address among public ones',
      (port: number) => `http://mixed.test:${port}/a.png`,
      '192.168.1.10 is a private address',
    ],
  ])('a redirect to %s is refused, the first hop having been fetched', async (_what, target, reason) => {
    server.redirect('/go', target(server.port));
    const resolve = names({ 'media.test': ['127.0.0.1'], 'internal.test': ['10.9.8.7'], 'mixed.test': ['127.0.0.1', '192.168.1.10'] });
    const result = await open({ allowPrivateHosts: false, addressPolicy: onlyThisLoopback, resolve }).fetch(
      `http://media.test:${server.port}/go`,
      1000,
    );
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain(reason);
    expect(server.hits.get('/go')).toBe(1);
    expect(server.hits.get('/a.png')).toBeUndefined();
  });

  it('with allowPrivateHosts, a loopback link is fetched', async () => {
    server.file('/a.png', mediaBytes.png(), 'image/png');
    expect(await open({ allowPrivateHosts: true }).fetch(server.url('/a.png'), 1000)).toMatchObject({ ok: true });
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
