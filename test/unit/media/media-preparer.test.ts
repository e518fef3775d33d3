import { describe, expect, it } from 'vitest';
import { CloudApiError } from '../../../src/cloud-api/cloud-api-errors.js';
import { DEFAULT_MEDIA_ID_RENEW_AFTER_MS, type MediaIdRecord, type MediaIds } from '../../../src/media/media-ids.js';
import { MediaPreparer, type MediaUploader } from '../../../src/media/media-preparer.js';
import { mediaProblem } from '../../../src/media/media-problem.js';
import type { MediaReader, MediaReadResult } from '../../../src/media/media-read.js';
import type { MediaSource } from '../../../src/media/media-source.js';
import { mediaBytes } from './media-bytes.js';

const NUMBERS = ['111', '222'];
const DAY = 24 * 60 * 60 * 1000;
const url = (name: string): MediaSource => ({ kind: 'url', url: `https://cdn.example/${name}` });

/** Serves each URL's bytes from a table, counting reads; `hold` keeps reads waiting until released. */
class TableReader implements MediaReader {
  readonly reads: { url: string; maxBytes: number }[] = [];
  hold: Promise<void> = Promise.resolve();
  constructor(readonly table: Map<string, MediaReadResult>) {}

  async read(source: MediaSource, maxBytes: number): Promise<MediaReadResult> {
    const where = source.kind === 'url' ? source.url : source.path;
    this.reads.push({ url: where, maxBytes });
    await this.hold;
    return this.table.get(where) ?? mediaProblem('MEDIA_UNREACHABLE', `${where} answered HTTP 404`);
  }
}

class CountingUploader implements MediaUploader {
  readonly uploads: { number: string; mimeType: string; filename: string }[] = [];
  failWith: Error | undefined;

  uploadMedia(number: string, _bytes: Uint8Array, mimeType: string, filename: string): Promise<string> {
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    this.uploads.push({ number, mimeType, filename });
    return Promise.resolve(`${number}${String(this.uploads.length).padStart(4, '0')}`);
  }
}

class MemoryIds implements MediaIds {
  readonly records = new Map<string, MediaIdRecord>();
  constructor(readonly now: () => number) {}
  get(number: string, key: string): Promise<MediaIdRecord | undefined> {
    const record = this.records.get(`${number}/${key}`);
    return Promise.resolve(record !== undefined && this.now() - record.uploadedAt < DEFAULT_MEDIA_ID_RENEW_AFTER_MS ? record : undefined);
  }
  put(number: string, key: string, record: MediaIdRecord): Promise<void> {
    this.records.set(`${number}/${key}`, record);
    return Promise.resolve();
  }
}

const served = (bytes: Buffer, declaredType = 'application/octet-stream'): MediaReadResult => ({
  ok: true,
  bytes,
  declaredType,
  from: 'x',
});

function rig(table: Record<string, MediaReadResult> = {}) {
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  const reader = new TableReader(new Map(Object.entries(table)));
  const uploader = new CountingUploader();
  const ids = new MemoryIds(now);
  const preparer = (options: { maxBytes?: number } = {}) =>
    new MediaPreparer({
      phoneNumberIds: NUMBERS,
      reader,
      uploader,
      ids,
      now,
      ...(options.maxBytes === undefined ? {} : { maxBytes: { IMAGE: options.maxBytes } }),
    });
  return { reader, uploader, ids, preparer, advance: (ms: number) => (clock += ms) };
}

const images = () => ({
  'https://cdn.example/a.png': served(mediaBytes.png(100)),
  'https://cdn.example/b.png': served(mediaBytes.png(200)),
  'https://cdn.example/c.jpg': served(mediaBytes.jpeg(300)),
});

describe('MediaPreparer.prepare', () => {
  it('3 sources × 2 numbers: 3 reads, 6 uploads, an ID per number for each', async () => {
    const { reader, uploader, preparer } = rig(images());
    const media = preparer();
    const results = await Promise.all(['a.png', 'b.png', 'c.jpg'].map((name) => media.prepare(url(name), 'IMAGE', { upload: true })));
    expect(reader.reads).toHaveLength(3);
    expect(uploader.uploads).toHaveLength(6);
    expect(media.counts).toEqual({ fetches: 3, uploads: 6 });
    for (const result of results) expect(result.ok && [...result.ids.keys()]).toEqual(NUMBERS);
    expect(uploader.uploads.map((u) => `${u.number} ${u.filename} ${u.mimeType}`).sort()).toEqual([
      '111 a.png image/png',
      '111 b.png image/png',
      '111 c.jpg image/jpeg',
      '222 a.png image/png',
      '222 b.png image/png',
      '222 c.jpg image/jpeg',
    ]);
  });

  it('concurrent prepares of one source share one promise: one read, one upload per number', async () => {
    const { reader, uploader, preparer } = rig(images());
    let release = () => undefined as void;
    reader.hold = new Promise((resolve) => (release = resolve));
    const media = preparer();
    const first = media.prepare(url('a.png'), 'IMAGE', { upload: true });
    const second = media.prepare(url('a.png'), 'IMAGE', { upload: true });
    expect(second).toBe(first);
    release();
    await Promise.all([first, second]);
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 1, uploads: 2 });
  });

  it('asking again costs nothing; a later campaign reads once and uploads nothing while the stored IDs are fresh', async () => {
    const { reader, uploader, preparer } = rig(images());
    const first = preparer();
    const prepared = await first.prepare(url('a.png'), 'IMAGE', { upload: true });
    expect(await first.prepare(url('a.png'), 'IMAGE', { upload: true })).toEqual(prepared);
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 1, uploads: 2 });
    const later = await preparer().prepare(url('a.png'), 'IMAGE', { upload: true });
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 2, uploads: 2 });
    expect(later.ok && later.ids).toEqual(prepared.ok && prepared.ids);
  });

  it('a file changed at the same URL is uploaded again', async () => {
    const { reader, uploader, preparer } = rig(images());
    await preparer().prepare(url('a.png'), 'IMAGE', { upload: true });
    reader.table.set('https://cdn.example/a.png', served(mediaBytes.png(150)));
    const again = await preparer().prepare(url('a.png'), 'IMAGE', { upload: true });
    expect(uploader.uploads).toHaveLength(4);
    expect(again.ok && again.size).toBe(150);
  });

  it('a dry run reads and checks, and uploads nothing', async () => {
    const { reader, uploader, preparer } = rig(images());
    const result = await preparer().prepare(url('c.jpg'), 'IMAGE', { upload: false });
    expect(result).toMatchObject({ ok: true, mimeType: 'image/jpeg', size: 300 });
    expect(result.ok && result.ids.size).toBe(0);
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 1, uploads: 0 });
  });

  it("reads at most the format's limit (or the lower one given), and answers problems as values", async () => {
    const { reader, preparer } = rig({ ...images(), 'https://cdn.example/big.png': served(mediaBytes.png(5000)) });
    expect(await preparer().prepare(url('a.png'), 'VIDEO', { upload: true })).toMatchObject({ ok: false, code: 'MEDIA_TYPE_MISMATCH' });
    expect(await preparer().prepare(url('missing.png'), 'IMAGE', { upload: true })).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(await preparer({ maxBytes: 1000 }).prepare(url('big.png'), 'IMAGE', { upload: true })).toMatchObject({
      ok: false,
      code: 'MEDIA_TOO_LARGE',
    });
    expect(reader.reads.map((r) => r.maxBytes)).toEqual([16 * 1024 * 1024, 5 * 1024 * 1024, 1000]);
  });

  it("Meta's refusal of the file (131053) is MEDIA_UPLOAD_REFUSED; any other Graph error is thrown, and not remembered", async () => {
    const { uploader, preparer } = rig(images());
    const media = preparer();
    uploader.failWith = new CloudApiError({
      httpStatus: 400,
      metaCode: 131053,
      details: 'Param file must be a file with one of the following types',
    });
    const refused = await media.prepare(url('a.png'), 'IMAGE', { upload: true });
    expect(refused).toMatchObject({ ok: false, code: 'MEDIA_UPLOAD_REFUSED' });
    expect(!refused.ok && refused.detail).toContain('Param file must be');
    uploader.failWith = new CloudApiError({ httpStatus: 401, metaCode: 190 });
    await expect(media.prepare(url('b.png'), 'IMAGE', { upload: true })).rejects.toMatchObject({ metaCode: 190 });
    uploader.failWith = undefined;
    expect(await media.prepare(url('b.png'), 'IMAGE', { upload: true })).toMatchObject({ ok: true });
  });
});

describe('MediaPreparer.mediaIdFor (the worker, at send time)', () => {
  it('answers the stored ID without reading', async () => {
    const { reader, preparer } = rig(images());
    const prepared = await preparer().prepare(url('a.png'), 'IMAGE', { upload: true });
    const worker = preparer();
    expect(await worker.mediaIdFor('222', url('a.png'), 'IMAGE')).toEqual({ ok: true, id: prepared.ok && prepared.ids.get('222') });
    expect(reader.reads).toHaveLength(1);
  });

  it('reads and uploads once for all the sends waiting when the ID is missing, then again once it is due for renewal', async () => {
    const { reader, uploader, preparer, advance } = rig(images());
    const worker = preparer();
    const ids = await Promise.all([1, 2, 3].map(() => worker.mediaIdFor('111', url('b.png'), 'IMAGE')));
    expect(new Set(ids.map((r) => r.ok && r.id)).size).toBe(1);
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 1, uploads: 1 });
    advance(24 * DAY);
    expect(await worker.mediaIdFor('111', url('b.png'), 'IMAGE')).toEqual(ids[0]);
    advance(2 * DAY);
    const renewed = await worker.mediaIdFor('111', url('b.png'), 'IMAGE');
    expect(renewed.ok && renewed.id).not.toBe(ids[0]?.ok && ids[0].id);
    expect({ reads: reader.reads.length, uploads: uploader.uploads.length }).toEqual({ reads: 2, uploads: 2 });
  });

  it('a media that cannot be read is not read again for every send of the next minute', async () => {
    const { reader, preparer, advance } = rig();
    const worker = preparer();
    for (let i = 0; i < 5; i++)
      expect(await worker.mediaIdFor('111', url('gone.png'), 'IMAGE')).toMatchObject({ code: 'MEDIA_UNREACHABLE' });
    expect(reader.reads).toHaveLength(1);
    advance(61_000);
    await worker.mediaIdFor('111', url('gone.png'), 'IMAGE');
    expect(reader.reads).toHaveLength(2);
  });
});
