import type { RedisClient } from '../redis/key-scope.js';
import type { RowStatus } from '../campaigns/campaign.js';

/** At most this many rows are read for one campaign's errors by code (the page says when it stopped there). */
export const ERROR_SCAN_CAP = 100_000;

/** The row statuses that carry a code: Meta's (or a transport failure's) for failed/unknown, the producer's reason for rejected/skipped. */
export const CODED_STATUSES = ['failed', 'unknown', 'rejected', 'skipped'] as const satisfies readonly RowStatus[];
export type CodedStatus = (typeof CODED_STATUSES)[number];

export interface CodeCount {
  status: CodedStatus;
  code: string;
  rows: number;
  /** The detail of one such row (Meta's message, the rejection reason), as stored. */
  example: string;
}

/** A campaign's rows counted by status and error code. */
export interface ErrorTally {
  /** Most rows first. */
  codes: CodeCount[];
  /** Rows read. */
  scanned: number;
  /** Every row was read; false when the scan stopped at its cap (the counts are then a sample). */
  complete: boolean;
  /** When it was counted (ms). */
  at: number;
}

const CODED = new Set<string>(CODED_STATUSES);

/**
 * Counts a campaign's rows by error code, reading its rows hash with HSCAN (1,000 a call, so
 * Redis is never blocked) and stopping after `cap` rows. There is no per-code counter in the
 * ledger (its Lua scripts keep counts by status only), so this reads the rows themselves: the
 * dashboard caches the result (error-tallies.ts) and never does it on the campaigns list's
 * request path. HSCAN may return a row twice while Redis resizes the hash: the counts are
 * then off by those rows, never by more.
 */
export async function scanErrorCodes(redis: RedisClient, rowsKey: string, cap = ERROR_SCAN_CAP, now = Date.now): Promise<ErrorTally> {
  const counts = new Map<string, CodeCount>();
  let cursor = '0';
  let scanned = 0;
  do {
    const [next, flat] = await redis.hscan(rowsKey, cursor, 'COUNT', 1000);
    cursor = next;
    for (let i = 1; i < flat.length; i += 2) {
      scanned++;
      const row = parseRow(flat[i] ?? '');
      if (row === undefined) continue;
      const key = `${row.status}\u0000${row.code}`;
      const entry = counts.get(key);
      if (entry === undefined) counts.set(key, { status: row.status, code: row.code, rows: 1, example: row.detail });
      else entry.rows++;
    }
  } while (cursor !== '0' && scanned < cap);
  const codes = [...counts.values()].sort((a, b) => b.rows - a.rows || a.status.localeCompare(b.status) || a.code.localeCompare(b.code));
  return { codes, scanned, complete: cursor === '0', at: now() };
}

/** A stored row's status, code and detail when it is a coded one (src/campaigns/stored-row.ts: `s`, `c`, `d`). */
function parseRow(json: string): { status: CodedStatus; code: string; detail: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { s, c, d } = value as { s?: unknown; c?: unknown; d?: unknown };
  if (typeof s !== 'string' || !CODED.has(s)) return undefined;
  return { status: s as CodedStatus, code: typeof c === 'string' && c !== '' ? c : '(none)', detail: typeof d === 'string' ? d : '' };
}
