import type { ChainableCommander } from 'ioredis';
import { bucketOf } from '../../metrics/buckets.js';

/**
 * What a process counted since its last flush, kept in memory: recording costs no Redis
 * command, and a flush adds it all to the shared hashes in the transaction given to it.
 */
export class CounterTally {
  #counts = new Map<string, number>();

  add(field: string, n = 1): void {
    this.#counts.set(field, (this.#counts.get(field) ?? 0) + n);
  }

  get isEmpty(): boolean {
    return this.#counts.size === 0;
  }

  entries(): IterableIterator<[string, number]> {
    return this.#counts.entries();
  }

  /** HINCRBY of every field counted into `tx` (the caller then drops this tally, or absorbs it back if `tx` failed). */
  writeTo(tx: ChainableCommander, hashKey: string): void {
    for (const [field, n] of this.#counts) tx.hincrby(hashKey, field, n);
  }

  /** Takes `other`'s counts in (a flush that failed gives them back). */
  absorb(other: CounterTally): void {
    for (const [field, n] of other.#counts) this.add(field, n);
  }
}

/** A histogram's observations since the last flush: a count per bucket, their sum and count. */
export class HistogramTally {
  #buckets = new CounterTally();
  #sum = 0;
  #count = 0;

  constructor(readonly bounds: readonly number[]) {}

  observe(value: number): void {
    const v = Math.max(0, value);
    this.#buckets.add(bucketOf(this.bounds, v));
    this.#sum += v;
    this.#count++;
  }

  get count(): number {
    return this.#count;
  }

  writeTo(tx: ChainableCommander, hashKey: string): void {
    if (this.#count === 0) return;
    this.#buckets.writeTo(tx, hashKey);
    tx.hincrbyfloat(hashKey, 'sum', this.#sum);
    tx.hincrby(hashKey, 'count', this.#count);
  }

  absorb(other: HistogramTally): void {
    this.#buckets.absorb(other.#buckets);
    this.#sum += other.#sum;
    this.#count += other.#count;
  }
}
