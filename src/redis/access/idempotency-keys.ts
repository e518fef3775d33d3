import { createHash } from 'node:crypto';
import type { RedisClient } from '../key-scope.js';

/** How long an Idempotency-Key's answer is kept: a client retries within a day or not at all. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** The key of a caller's Idempotency-Key: the key hashed (it is the client's text, of any length and content). */
export function idempotencyKeyName(prefix: string, callerKey: string, key: string): string {
  return `${prefix}:api:idem:${callerKey}:${createHash('sha256').update(key).digest('hex')}`;
}

/** The first answer given to a key, replayed to a retry. */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * What a key holds: a request still at work, or its answer with the fingerprint of the request
 * that got it (a record kept before fingerprints were stored has none).
 */
export type IdempotencyRecord = { state: 'pending' } | { state: 'done'; answer: StoredAnswer; fingerprint?: string };

/**
 * The API's Idempotency-Key records, one per caller and key, kept IDEMPOTENCY_TTL_SECONDS: a
 * request claims its key before it reads anything, so a concurrent duplicate finds it pending.
 */
export class IdempotencyStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /** Claims the key for this request: undefined when it was free, else what the earlier request left. */
  async claim(callerKey: string, key: string): Promise<IdempotencyRecord | undefined> {
    const name = idempotencyKeyName(this.#prefix, callerKey, key);
    const pending: IdempotencyRecord = { state: 'pending' };
    const set = await this.#redis.set(name, JSON.stringify(pending), 'EX', IDEMPOTENCY_TTL_SECONDS, 'NX');
    if (set === 'OK') return undefined;
    const held = await this.#redis.get(name);
    // Expired between the two calls: a retry claims it afresh.
    if (held === null) return this.claim(callerKey, key);
    return JSON.parse(held) as IdempotencyRecord;
  }

  /** Keeps the answer for retries, for the rest of the key's day, with the fingerprint a retry must match. */
  async complete(callerKey: string, key: string, answer: StoredAnswer, fingerprint: string): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', answer, fingerprint };
    await this.#redis.set(idempotencyKeyName(this.#prefix, callerKey, key), JSON.stringify(record), 'EX', IDEMPOTENCY_TTL_SECONDS);
  }

  /** Frees the key after a failure, so the client can retry the same request. */
  async release(callerKey: string, key: string): Promise<void> {
    await this.#redis.del(idempotencyKeyName(this.#prefix, callerKey, key));
  }
}
