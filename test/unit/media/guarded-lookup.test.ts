import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedAddressReason } from '../../../src/media/address-policy.js';
import { guardedLookup, RefusedAddressError, type Resolver } from '../../../src/media/guarded-lookup.js';
import { MediaFetcher } from '../../../src/media/media-fetch.js';

/** What a socket's lookup answers: the checked addresses, or an error; nothing here opens a connection. */
function lookupOnce(resolve: Resolver, hostname: string, all: boolean): Promise<{ error: Error | null; result: unknown }> {
  const lookup = guardedLookup(resolve, refusedAddressReason);
  return new Promise((done) => {
    lookup(hostname, { all, family: 0 }, (error, address, family) => done({ error, result: all ? address : { address, family } }));
  });
}

const answers =
  (...addresses: LookupAddress[]): Resolver =>
  () =>
    Promise.resolve(addresses);

describe('guardedLookup', () => {
  it('hands the socket the resolved addresses when every one is public (all, or the first)', async () => {
    const resolve = answers({ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
    expect(await lookupOnce(resolve, 'example.com', true)).toEqual({
      error: null,
      result: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    expect(await lookupOnce(resolve, 'example.com', false)).toEqual({ error: null, result: { address: '93.184.216.34', family: 4 } });
  });

  it('refuses the name when any one address is not public (a client may pick any), naming it', async () => {
    const resolve = answers({ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 });
    const { error } = await lookupOnce(resolve, 'mixed.example', true);
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect((error as RefusedAddressError).reason).toContain('10.1.2.3 is a private address');
    expect(error?.message).toBe('mixed.example resolves to a refused address: 10.1.2.3 is a private address (10.0.0.0/8)');
  });

  it('refuses an IPv4-mapped IPv6 answer by its IPv4 address', async () => {
    const { error } = await lookupOnce(answers({ address: '::ffff:169.254.169.254', family: 6 }), 'metadata.example', false);
    expect((error as RefusedAddressError).reason).toContain('IPv4-mapped form of 169.254.169.254');
  });

  it('passes a resolver failure on (ENOTFOUND), and treats no address as not found', async () => {
    const failing: Resolver = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' }));
    expect((await lookupOnce(failing, 'nowhere.test', true)).error).toMatchObject({ code: 'ENOTFOUND' });
    expect((await lookupOnce(answers(), 'empty.test', true)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('MediaFetcher: hosts that look numeric', () => {
  let fetcher: MediaFetcher | undefined;
  afterEach(async () => {
    await fetcher?.close();
    fetcher = undefined;
  });

  it.each([
    ['http://2130706433/a.png', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/a.png', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/a.png', '127.0.0.1 is a loopback address'],
    ['http://127.1/a.png', '127.0.0.1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]/a.png', '::ffff:7f00:1 is the IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['http://[::1]:8080/a.png', '::1 is a loopback address'],
    ['http://0/a.png', '0.0.0.0 is an unspecified ("this network") address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
  ])('%s is normalised by the URL parser and refused without a request: %s', async (url, reason) => {
    fetcher = new MediaFetcher({ allowPrivateHosts: false, resolve: () => Promise.reject(new Error('no lookup expected')) });
    const result = await fetcher.fetch(url, 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain(reason);
    expect(!result.ok && result.detail).toContain('MEDIA_ALLOW_PRIVATE_HOSTS=1');
  });

  it('a name that merely looks numeric goes through the resolver, whose answer is judged', async () => {
    const asked: string[] = [];
    fetcher = new MediaFetcher({
      allowPrivateHosts: false,
      resolve: (hostname) => {
        asked.push(hostname);
        return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
      },
    });
    const result = await fetcher.fetch('http://0177.0.0.1.nip.example/a.png', 1000);
    expect(asked).toEqual(['0177.0.0.1.nip.example']);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('0177.0.0.1.nip.example resolves to a refused address: 127.0.0.1 is a loopback address');
  });

  it.each([
    ['ftp://files.example/a.png', 'ftp:'],
    ['file:///etc/passwd', 'file:'],
    ['data:image/png;base64,AAAA', 'data:'],
  ])('%s is refused: only http(s) is fetched', async (url, scheme) => {
    fetcher = new MediaFetcher({ allowPrivateHosts: true });
    const result = await fetcher.fetch(url, 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain(`a ${scheme} URL`);
  });

  it('a link with credentials is refused, and the detail shows neither them nor the query', async () => {
    fetcher = new MediaFetcher({ allowPrivateHosts: true });
    const result = await fetcher.fetch('https://user:hunter2@files.example/a.png?X-Amz-Signature=secret', 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    const detail = !result.ok ? result.detail : '';
    expect(detail).toContain('https://files.example/a.png');
    expect(detail).not.toMatch(/hunter2|secret|user:/);
  });
});
