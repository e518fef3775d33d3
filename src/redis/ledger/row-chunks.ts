import type { RedisClient } from '../key-scope.js';

/**
 * Reads a campaign's rows where the ledger keeps them (src/redis/lua/includes/row-store.lua,
 * which alone writes them): lists of ROW_CHUNK records, `<rows>:<n>` holding rows n × ROW_CHUNK
 * to (n + 1) × ROW_CHUNK - 1 at their place, an empty record where a row is not stored; rows an
 * older version kept in the one hash `<rows>` are read there. test/integration/row-store.test.ts
 * holds the two sides to the same ROW_CHUNK.
 */
export const ROW_CHUNK = 64;

export function rowChunkKey(rowsKey: string, row: number): string {
  return `${rowsKey}:${Math.floor(row / ROW_CHUNK)}`;
}

/** The list keys that can hold rows 0 to `lastRow`. */
export function rowChunkKeys(rowsKey: string, lastRow: number): string[] {
  return Array.from({ length: Math.floor(Math.max(lastRow, 0) / ROW_CHUNK) + 1 }, (_, n) => rowChunkKey(rowsKey, n * ROW_CHUNK));
}

/** Rows `from` to `to` (inclusive) as stored, null where none is: one LRANGE a list, and the older hash only when it is there. */
export async function storedRowRange(redis: RedisClient, rowsKey: string, from: number, to: number): Promise<(Buffer | null)[]> {
  if (to < from) return [];
  // One campaign's keys: one slot, so one pipeline even on a cluster.
  const pipeline = redis.pipeline();
  for (let chunk = Math.floor(from / ROW_CHUNK); chunk <= Math.floor(to / ROW_CHUNK); chunk++) {
    const first = Math.max(from - chunk * ROW_CHUNK, 0);
    const last = Math.min(to - chunk * ROW_CHUNK, ROW_CHUNK - 1);
    pipeline.lrangeBuffer(rowChunkKey(rowsKey, chunk * ROW_CHUNK), first, last);
  }
  pipeline.exists(rowsKey);
  const answers = (await pipeline.exec()) ?? [];
  const older = Number(answers.at(-1)?.[1] ?? 0) === 1;
  const rows: (Buffer | null)[] = Array.from({ length: to - from + 1 }, () => null);
  let at = 0;
  for (const [error, list] of answers.slice(0, -1)) {
    if (error !== null) throw error;
    const records = list as Buffer[];
    const start = Math.floor((from + at) / ROW_CHUNK) * ROW_CHUNK;
    const offset = from + at - start;
    const span = Math.min(ROW_CHUNK - offset, to - (from + at) + 1);
    for (let i = 0; i < span; i++) {
      const record = records[i];
      if (record !== undefined && record.length > 0) rows[at + i] = record;
    }
    at += span;
  }
  if (older) {
    const missing = rows.flatMap((record, i) => (record === null ? [String(from + i)] : []));
    if (missing.length > 0) {
      const found = await redis.hmgetBuffer(rowsKey, ...missing);
      missing.forEach((row, i) => {
        rows[Number(row) - from] = found[i] ?? null;
      });
    }
  }
  return rows;
}

/** One row as stored, or null. */
export async function storedRow(redis: RedisClient, rowsKey: string, row: number): Promise<Buffer | null> {
  return (await storedRowRange(redis, rowsKey, row, row))[0] ?? null;
}
