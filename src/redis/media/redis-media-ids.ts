import { z } from 'zod';
import type { RedisClient } from '../key-scope.js';
import { DEFAULT_MEDIA_ID_RENEW_AFTER_MS, MEDIA_ID_LIFETIME_MS, type MediaIdRecord, type MediaIds } from '../../media/media-ids.js';
import { safeJson } from '../../cloud-api/safe-json.js';
import { mediaIdKey } from './media-id-keys.js';

const recordSchema = z.object({ id: z.string().min(1), uploadedAt: z.number().int().nonnegative(), sha256: z.string() });

export interface RedisMediaIdsOptions {
  /** An ID older than this is not returned, so it is uploaded again (default 25 days). */
  renewAfterMs?: number;
  /** Tests: the clock (ms). */
  now?: () => number;
}

/**
 * Uploaded media IDs in Redis: one string key per (number, source) holding
 * `{"id","uploadedAt","sha256"}` as JSON (media-id-keys.ts names it). A key of its own per
 * entry, not a field of a hash per number, so that each expires on its own when Meta's ID does
 * (30 days after the upload): a number's store never needs pruning, however many per-row links
 * its campaigns had. A later upload of the same source replaces the entry and its expiry.
 */
export class RedisMediaIds implements MediaIds {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #renewAfterMs: number;
  readonly #now: () => number;

  constructor(redis: RedisClient, prefix: string, options: RedisMediaIdsOptions = {}) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#renewAfterMs = options.renewAfterMs ?? DEFAULT_MEDIA_ID_RENEW_AFTER_MS;
    this.#now = options.now ?? Date.now;
  }

  async get(phoneNumberId: string, sourceKey: string): Promise<MediaIdRecord | undefined> {
    const text = await this.#redis.get(mediaIdKey(this.#prefix, phoneNumberId, sourceKey));
    if (text === null) return undefined;
    // A value this version cannot read is as good as none: the media is uploaded again and the entry replaced.
    const parsed = recordSchema.safeParse(safeJson(text));
    if (!parsed.success) return undefined;
    return this.#now() - parsed.data.uploadedAt < this.#renewAfterMs ? parsed.data : undefined;
  }

  async put(phoneNumberId: string, sourceKey: string, record: MediaIdRecord): Promise<void> {
    const ttlMs = record.uploadedAt + MEDIA_ID_LIFETIME_MS - this.#now();
    if (ttlMs <= 0) return;
    const value = JSON.stringify({ id: record.id, uploadedAt: record.uploadedAt, sha256: record.sha256 });
    await this.#redis.set(mediaIdKey(this.#prefix, phoneNumberId, sourceKey), value, 'PX', Math.ceil(ttlMs));
  }
}
