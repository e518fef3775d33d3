import { CODED_STATUSES, ERROR_SCAN_CAP, type CodeCount, type CodedStatus, type ErrorCodeCount, type ErrorCodeLedger } from '../campaigns/report/error-codes.js';
import type { LedgerContext } from './ledger-context.js';
import type { StoredRow } from './stored-row.js';

const CODED = new Set<string>(CODED_STATUSES);

/**
 * Counts a campaign's rows by error code, reading its rows hash with HSCAN (1,000 a call, so
 * Redis is never blocked) and stopping after `cap` rows. HSCAN may return a row twice while
 * Redis resizes the hash: the counts are then off by those rows, never by more.
 */
export class LedgerErrorCodes implements ErrorCodeLedger {
  constructor(private readonly context: LedgerContext) {}

  async errorCodes(campaignId: string, cap = ERROR_SCAN_CAP): Promise<ErrorCodeCount> {
    const { redis } = this.context;
    const rowsKey = (await this.context.keys(campaignId)).rows;
    const counts = new Map<string, CodeCount>();
    let cursor = '0';
    let scanned = 0;
    do {
      const [next, flat] = await redis.hscan(rowsKey, cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 1; i < flat.length; i += 2) {
        scanned++;
        const row = codedRow(flat[i] ?? '');
        if (row === undefined) continue;
        const key = `${row.status}\u0000${row.code}`;
        const entry = counts.get(key);
        if (entry === undefined) counts.set(key, { status: row.status, code: row.code, rows: 1, example: row.detail });
        else entry.rows++;
      }
    } while (cursor !== '0' && scanned < cap);
    const codes = [...counts.values()].sort((a, b) => b.rows - a.rows || a.status.localeCompare(b.status) || a.code.localeCompare(b.code));
    return { codes, scanned, complete: cursor === '0' };
  }
}

/** A stored row's status, code and detail when it is a coded one (StoredRow's `s`, `c`, `d`). */
function codedRow(json: string): { status: CodedStatus; code: string; detail: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { s, c, d } = value as { [K in keyof Pick<StoredRow, 's' | 'c' | 'd'>]?: unknown };
  if (typeof s !== 'string' || !CODED.has(s)) return undefined;
  return { status: s as CodedStatus, code: typeof c === 'string' && c !== '' ? c : '(none)', detail: typeof d === 'string' ? d : '' };
}
