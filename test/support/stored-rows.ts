import type { Redis } from 'ioredis';
import { decodeStoredRow } from '../../src/redis/ledger/row-codec.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';

/** A row's record as the ledger stores it (includes/row-codec.lua), read as the product reads it; undefined when there is none. */
export async function storedRowOf(redis: Redis, rowsKey: string, row: number | string): Promise<StoredRow | undefined> {
  const raw = await redis.hgetBuffer(rowsKey, String(row));
  return raw === null ? undefined : decodeStoredRow(raw);
}
