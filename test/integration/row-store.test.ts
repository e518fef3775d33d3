import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLuaInclude } from '../../src/redis/lua-scripts.js';
import { ROW_CHUNK, rowChunkKey, rowChunkKeys, storedRow, storedRowRange } from '../../src/redis/ledger/row-chunks.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { putStoredRow } from '../support/stored-rows.js';

/**
 * Where a campaign's rows are kept (src/redis/lua/includes/row-store.lua writes them; row-chunks.ts
 * reads them for the TypeScript side), on a real Redis: lists of ROW_CHUNK records, each row at its
 * place, read back the same by both sides across lists and gaps; rows an older version kept in one
 * hash read there until stored again; and a list of rows held in about its records' bytes.
 */

/** The record stored at each row (ARGV: row, row, …) as Lua reads it, false where none is. */
const READ = `${loadLuaInclude('row-store')}
local out = {}
for i = 1, #ARGV do out[i] = rowStored(KEYS[1], ARGV[i]) end
return out`;

describe('row lists (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = testRedis();
    prefix = freshPrefix('row-store');
  });
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('keeps row r at place r mod ROW_CHUNK of list r / ROW_CHUNK, and both sides read each row, a gap as none', async () => {
    const rows = `${prefix}:{1}:campaign:c:rows`;
    const planted = [1, 2, ROW_CHUNK - 1, ROW_CHUNK, 2 * ROW_CHUNK + 5];
    for (const row of planted) await putStoredRow(redis, rows, row, `record ${row}`);
    // The Lua's lists are where the TypeScript looks for them: the same ROW_CHUNK on both sides.
    for (const row of planted) expect(await redis.lindex(rowChunkKey(rows, row), row % ROW_CHUNK)).toBe(`record ${row}`);
    expect(await redis.llen(rowChunkKey(rows, 1))).toBe(ROW_CHUNK);
    expect(await redis.llen(rowChunkKey(rows, 2 * ROW_CHUNK))).toBe(6);
    const wanted = Array.from({ length: 2 * ROW_CHUNK + 10 }, (_, i) => i);
    const read = (await storedRowRange(redis, rows, 0, wanted.length - 1)).map((raw) => raw?.toString() ?? null);
    expect(read).toEqual(wanted.map((row) => (planted.includes(row) ? `record ${row}` : null)));
    const lua = (await redis.eval(READ, 1, rows, ...wanted.map(String))) as (string | null)[];
    expect(lua.map((stored) => stored ?? null)).toEqual(read);
    // A record stored again replaces it in place; a range inside one list, and a single row, read the same.
    await putStoredRow(redis, rows, ROW_CHUNK, 'again');
    expect((await storedRowRange(redis, rows, ROW_CHUNK - 1, ROW_CHUNK)).map((raw) => raw?.toString())).toEqual([
      `record ${ROW_CHUNK - 1}`,
      'again',
    ]);
    expect((await storedRow(redis, rows, 2 * ROW_CHUNK + 5))?.toString()).toBe(`record ${2 * ROW_CHUNK + 5}`);
    expect(rowChunkKeys(rows, 2 * ROW_CHUNK + 5)).toEqual([0, 1, 2].map((n) => `${rows}:${n}`));
  });

  it('reads rows an older version kept in one hash, and moves each to its list when stored again', async () => {
    const rows = `${prefix}:{1}:campaign:older:rows`;
    await redis.hset(rows, '3', 'old 3', '70', 'old 70');
    await putStoredRow(redis, rows, 4, 'new 4');
    expect((await storedRowRange(redis, rows, 3, 4)).map((raw) => raw?.toString())).toEqual(['old 3', 'new 4']);
    expect(((await redis.eval(READ, 1, rows, '70')) as string[])[0]).toBe('old 70');
    await putStoredRow(redis, rows, 3, 'new 3');
    expect(await redis.hexists(rows, '3')).toBe(0);
    expect((await storedRowRange(redis, rows, 3, 70)).filter((raw) => raw !== null).map(String)).toEqual(['new 3', 'new 4', 'old 70']);
  });

  it('holds a list of rows in about its records’ bytes, whatever their length', async () => {
    const rows = `${prefix}:{1}:campaign:bytes:rows`;
    const record = 'x'.repeat(70);
    for (let row = 0; row < ROW_CHUNK; row++) await putStoredRow(redis, rows, row, record);
    const bytes = Number(await redis.memory('USAGE', rowChunkKey(rows, 0), 'SAMPLES', 0));
    // One big hash kept such a record in about 120 B; a list in its bytes and a few more (the list's own, its allocation rounded up).
    expect(bytes / ROW_CHUNK).toBeLessThan(record.length + 16);
    await putStoredRow(redis, rows, ROW_CHUNK, 'y'.repeat(5_000));
    expect((await storedRow(redis, rows, ROW_CHUNK))?.length).toBe(5_000);
  });
});
