import { packAttributes } from '../../audiences/attribute-packing.js';
import type { RedisClient } from '../key-scope.js';
import { audienceScripts } from './audience-scripts.js';

/**
 * How an import writes its contacts:
 * - `staged`: a new audience, or `--replace`: into a staging hash, renamed onto the contacts at the end;
 * - `direct`: the file has every column the audience has: each contact's packed values are written whole;
 * - `merge`: the file lacks some of the audience's columns: a script keeps their values (audience-scripts.ts).
 */
export type AudienceWriteMode = 'staged' | 'direct' | 'merge';

/** One contact of a chunk: its phone (E.164) and its values in the file's column order. */
export type ContactValues = readonly [phone: string, values: readonly string[]];

/** Commands in flight at once: enough to keep Redis busy while the file is read, few enough to bound memory. */
const IN_FLIGHT = 4;
/** A staging hash an import left behind (the process died) goes on its own after this long. */
export const STAGING_TTL_MS = 86_400_000;

/**
 * Writes an import's contacts a chunk per command (HSET of the whole chunk, or one script
 * call), a few chunks in flight; the caller awaits `write` only to be held back when Redis
 * is behind. Counts the contacts that were new to the hash it writes.
 */
export class AudienceImportWriter {
  readonly #inFlight = new Set<Promise<void>>();
  #failure: Error | undefined;
  #added = 0;
  #written = 0;
  /** The file's columns are the audience's, in its order: values are packed as read. */
  readonly #asRead: boolean;

  constructor(
    private readonly redis: RedisClient,
    /** The hash written: the staging hash, or the audience's contacts. */
    readonly key: string,
    readonly mode: AudienceWriteMode,
    /** The audience's columns after this import. */
    readonly columns: readonly string[],
    /** For each column of the file, its index in `columns`. */
    private readonly positions: readonly number[],
  ) {
    this.#asRead = positions.length === columns.length && positions.every((p, i) => p === i);
  }

  /** Contacts written so far (a phone written twice counts twice). */
  get written(): number {
    return this.#written;
  }

  /** Queues a chunk; resolves once fewer than IN_FLIGHT chunks are waiting for Redis. Throws the first failure. */
  async write(chunk: readonly ContactValues[]): Promise<void> {
    this.#throwIfFailed();
    if (chunk.length === 0) return;
    this.#written += chunk.length;
    const sent = this.#send(chunk).then(
      (added) => void (this.#added += added),
      (error: unknown) => void (this.#failure ??= error instanceof Error ? error : new Error(String(error))),
    );
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
    while (this.#inFlight.size >= IN_FLIGHT) await Promise.race(this.#inFlight);
    this.#throwIfFailed();
  }

  /** Waits for every chunk: the number of contacts that were new to the hash. */
  async flush(): Promise<number> {
    await Promise.all(this.#inFlight);
    this.#throwIfFailed();
    return this.#added;
  }

  async #send(chunk: readonly ContactValues[]): Promise<number> {
    if (this.mode === 'merge') {
      const args: string[] = [];
      for (const [phone, values] of chunk) args.push(phone, ...values);
      return Number(
        await audienceScripts(this.redis).cwAudienceMerge(
          this.key,
          this.columns.length,
          this.positions.length,
          ...this.positions.map((p) => p + 1),
          ...args,
        ),
      );
    }
    const flat: string[] = [];
    for (const [phone, values] of chunk) flat.push(phone, packAttributes(this.#inAudienceOrder(values)));
    if (this.mode === 'direct') return this.redis.hset(this.key, ...flat);
    const [[error, added] = [null, 0]] =
      (await this.redis
        .pipeline()
        .hset(this.key, ...flat)
        .pexpire(this.key, STAGING_TTL_MS)
        .exec()) ?? [];
    if (error !== null) throw error;
    return Number(added);
  }

  /** The file's values placed at their columns (the file has every column here: direct or staged). */
  #inAudienceOrder(values: readonly string[]): readonly string[] {
    if (this.#asRead) return values;
    const placed = this.columns.map(() => '');
    this.positions.forEach((p, i) => (placed[p] = values[i] ?? ''));
    return placed;
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}
