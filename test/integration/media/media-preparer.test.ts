import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiError } from '../../../src/cloud-api/cloud-api-errors.js';
import { MediaUploadClient } from '../../../src/cloud-api/media-upload-client.js';
import { Secret } from '../../../src/config/secret.js';
import { MediaFetcher } from '../../../src/media/media-fetch.js';
import { MediaPreparer } from '../../../src/media/media-preparer.js';
import { MediaSourceReader } from '../../../src/media/media-source-reader.js';
import { mediaSourceKey, type MediaSource } from '../../../src/media/media-source.js';
import { mediaIdKey } from '../../../src/redis/media/media-id-keys.js';
import { RedisMediaIds } from '../../../src/redis/media/redis-media-ids.js';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { freshPrefix, removePrefix, testRedis } from '../../support/redis.js';
import { getJson, startTestSandbox, TOKEN } from '../sandbox-helpers.js';
import { mediaBytes } from '../../unit/media/media-bytes.js';
import { MediaServer } from './media-server.js';

/**
 * A campaign's header media end to end: links served by a real HTTP server, read and checked
 * by MediaPreparer, uploaded to the real sandbox (`POST /{phone-number-id}/media`), the IDs
 * kept in Redis under a fresh prefix.
 */
const NUMBERS = ['106540352242922', '106540352242923'];
const DAY = 24 * 60 * 60 * 1000;

let sandbox: Sandbox;
let server: MediaServer;
let redis: Redis;
let prefix: string;
let uploader: MediaUploadClient;
const fetchers: MediaFetcher[] = [];
let clock: number;

beforeEach(async () => {
  [sandbox, server] = await Promise.all([startTestSandbox({ phoneNumberIds: NUMBERS }), new MediaServer().start()]);
  redis = testRedis();
  prefix = freshPrefix('media');
  clock = Date.now();
  uploader = new MediaUploadClient({ baseUrl: sandbox.url, apiVersion: 'v25.0', accessToken: new Secret(TOKEN), timeoutMs: 30_000 });
});

afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
  await removePrefix(redis, prefix);
  await Promise.all([uploader.close(), sandbox.close(), server.close(), redis.quit()]);
});

function preparer(options: { allowPrivateHosts?: boolean; maxBytes?: number } = {}): MediaPreparer {
  const fetcher = new MediaFetcher({ allowPrivateHosts: options.allowPrivateHosts ?? true });
  fetchers.push(fetcher);
  return new MediaPreparer({
    phoneNumberIds: NUMBERS,
    reader: new MediaSourceReader(fetcher),
    uploader,
    ids: new RedisMediaIds(redis, prefix, { now: () => clock }),
    now: () => clock,
    ...(options.maxBytes === undefined ? {} : { maxBytes: { IMAGE: options.maxBytes, VIDEO: options.maxBytes } }),
  });
}

const link = (path: string): MediaSource => ({ kind: 'url', url: server.url(path) });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const fetchesOf = (...paths: string[]) => paths.reduce((sum, path) => sum + (server.hits.get(path) ?? 0), 0);

interface SandboxMedia {
  id?: string;
  mime_type?: string;
  sha256?: string;
}

describe('MediaPreparer with the sandbox and Redis', () => {
  it('3 links × 2 numbers: 3 downloads, 6 uploads, each ID the file on its own number; asking again uploads nothing', async () => {
    const files = { '/a.png': mediaBytes.png(1000), '/b.jpg': mediaBytes.jpeg(2000), '/c.png': mediaBytes.png(3000) };
    for (const [path, bytes] of Object.entries(files)) server.file(path, bytes, 'image/png');
    const campaign = preparer();
    const results = await Promise.all(Object.keys(files).map((path) => campaign.prepare(link(path), 'IMAGE', { upload: true })));
    expect(fetchesOf(...Object.keys(files))).toBe(3);
    expect(campaign.counts).toEqual({ fetches: 3, uploads: 6 });

    for (const [index, [path, bytes]] of Object.entries(files).entries()) {
      const result = results[index];
      if (result?.ok !== true) throw new Error(`expected ${path} prepared, got ${JSON.stringify(result)}`);
      for (const number of NUMBERS) {
        const id = result.ids.get(number) ?? '';
        const info = await getJson<SandboxMedia>(`${sandbox.url}/v25.0/${id}?phone_number_id=${number}`);
        expect(info).toMatchObject({
          status: 200,
          body: { id, sha256: sha256(bytes), mime_type: path.endsWith('.jpg') ? 'image/jpeg' : 'image/png' },
        });
        const ttl = await redis.pttl(mediaIdKey(prefix, number, mediaSourceKey(link(path))));
        expect(ttl).toBeGreaterThan(29 * DAY);
        expect(ttl).toBeLessThanOrEqual(30 * DAY);
      }
    }

    expect(await campaign.prepare(link('/a.png'), 'IMAGE', { upload: true })).toEqual(results[0]);
    const next = preparer();
    const again = await Promise.all(Object.keys(files).map((path) => next.prepare(link(path), 'IMAGE', { upload: true })));
    expect(next.counts).toEqual({ fetches: 3, uploads: 0 });
    expect(again).toEqual(results);
  });

  it('a dry run downloads and checks, and uploads nothing', async () => {
    server.file('/v.mp4', mediaBytes.mp4(4000), 'video/mp4');
    const campaign = preparer();
    expect(await campaign.prepare(link('/v.mp4'), 'VIDEO', { upload: false })).toMatchObject({
      ok: true,
      mimeType: 'video/mp4',
      size: 4000,
    });
    expect(campaign.counts).toEqual({ fetches: 1, uploads: 0 });
  });

  it('a 404 link is MEDIA_UNREACHABLE', async () => {
    const result = await preparer().prepare(link('/gone.png'), 'IMAGE', { upload: true });
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('answered HTTP 404');
  });

  it('a PNG served as an image for a video header is MEDIA_TYPE_MISMATCH, and nothing is uploaded', async () => {
    server.file('/promo.mp4', mediaBytes.png(500), 'image/png');
    const campaign = preparer();
    const result = await campaign.prepare(link('/promo.mp4'), 'VIDEO', { upload: true });
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TYPE_MISMATCH' });
    expect(!result.ok && result.detail).toContain('is a PNG image (served as image/png); a VIDEO header takes MP4 or 3GPP');
    expect(campaign.counts.uploads).toBe(0);
  });

  it('a body larger than the cap is MEDIA_TOO_LARGE, and its download is cut short', async () => {
    server.endless('/huge.png');
    const result = await preparer({ maxBytes: 64 * 1024 }).prepare(link('/huge.png'), 'IMAGE', { upload: true });
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    await expect.poll(() => server.cutShort.has('/huge.png')).toBe(true);
  });

  it('a link to 127.0.0.1 without MEDIA_ALLOW_PRIVATE_HOSTS is MEDIA_UNREACHABLE naming the address, and never requested', async () => {
    server.file('/a.png', mediaBytes.png(), 'image/png');
    const result = await preparer({ allowPrivateHosts: false }).prepare(link('/a.png'), 'IMAGE', { upload: true });
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('127.0.0.1 is a loopback address (127.0.0.0/8)');
    expect(server.hits.size).toBe(0);
  });

  it('the worker gets the stored ID, and a new upload once the ID is 25 days old', async () => {
    server.file('/a.png', mediaBytes.png(800), 'image/png');
    const prepared = await preparer().prepare(link('/a.png'), 'IMAGE', { upload: true });
    const worker = preparer();
    const stored = await worker.mediaIdFor(NUMBERS[1] ?? '', link('/a.png'), 'IMAGE');
    expect(stored).toEqual({ ok: true, id: prepared.ok && prepared.ids.get(NUMBERS[1] ?? '') });
    expect(worker.counts).toEqual({ fetches: 0, uploads: 0 });
    clock += 25 * DAY;
    const renewed = await Promise.all([1, 2, 3].map(() => worker.mediaIdFor(NUMBERS[1] ?? '', link('/a.png'), 'IMAGE')));
    expect(worker.counts).toEqual({ fetches: 1, uploads: 1 });
    expect(renewed[0]).not.toEqual(stored);
    expect(new Set(renewed.map((r) => r.ok && r.id)).size).toBe(1);
    expect((await getJson(`${sandbox.url}/v25.0/${renewed[0]?.ok ? renewed[0].id : ''}`)).status).toBe(200);
  });
});

describe('MediaUploadClient against the sandbox', () => {
  it('a type Meta does not take is refused with 131053, as a CloudApiError', async () => {
    const error = await uploader.uploadMedia(NUMBERS[0] ?? '', mediaBytes.gif(), 'image/gif', 'x.gif').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiError);
    expect(error).toMatchObject({ metaCode: 131053, httpStatus: 400 });
  });

  it('an unknown number is refused as Graph refuses it', async () => {
    const error = await uploader.uploadMedia('999999999', mediaBytes.png(), 'image/png', 'x.png').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CLOUD_API_ERROR', metaCode: 100 });
  });
});
