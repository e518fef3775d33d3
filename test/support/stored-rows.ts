import type { RedisClient } from '../../src/redis/key-scope.js';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';
import { storedRow } from '../../src/redis/ledger/row-chunks.js';
import { decodeStoredRow } from '../../src/redis/ledger/row-codec.js';
import type { StoredRow } from '../../src/redis/ledger/stored-row.js';

/** A row's record as the ledger stores it (includes/row-store.lua, row-codec.lua), read as the product does; undefined when none. */
export async function storedRowOf(redis: RedisClient, rowsKey: string, row: number | string): Promise<StoredRow | undefined> {
  const raw = await storedRow(redis, rowsKey, Number(row));
  return raw === null ? undefined : decodeStoredRow(raw);
}

const PUT_ROW = `${loadLuaInclude('row-store')}
storeRow(KEYS[1], ARGV[1], ARGV[2])
return 1`;

/** Stores `raw` as row `row`'s record where the ledger keeps it (includes/row-store.lua): a test plants an older or damaged one. */
export async function putStoredRow(redis: RedisClient, rowsKey: string, row: number, raw: string | Buffer): Promise<void> {
  await redis.eval(PUT_ROW, 1, rowsKey, String(row), raw);
}

/** The rows stored for a campaign, in its lists and in any older hash. */
export async function storedRowCount(redis: RedisClient, rowsKey: string): Promise<number> {
  const lists = await redis.keys(`${rowsKey}:*`);
  let count = await redis.hlen(rowsKey).catch(() => 0);
  for (const list of lists) count += (await redis.lrange(list, 0, -1)).filter((record) => record !== '').length;
  return count;
}

/** What Redis holds for a campaign's rows (MEMORY USAGE of its lists and any older hash). */
export async function storedRowBytes(redis: RedisClient, rowsKey: string): Promise<number> {
  let bytes = 0;
  for (const key of [rowsKey, ...(await redis.keys(`${rowsKey}:*`))]) bytes += Number((await redis.memory('USAGE', key)) ?? 0);
  return bytes;
}
