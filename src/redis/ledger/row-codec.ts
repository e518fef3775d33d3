import { createRequire } from 'node:module';
import type { Unpackr } from 'msgpackr';
import { ROW_STATUSES } from '../../campaigns/campaign.js';
import type { StoredRow } from './stored-row.js';

/**
 * Reads a row's record as the `rows` hash keeps it (src/redis/lua/includes/row-codec.lua, which
 * alone writes it): MessagePack of an array whose places are ROW_PLACES, every other field in a
 * map after them, the status and the pricing category as their place in ROW_STATUSES /
 * ROW_PRICING_CODES (1 first) when they are one of those, a phone in E.164 as the number of its
 * digits, Meta's hex ID of a message as the base64url of its bytes after `~`, and `dt`, `rt`,
 * `ft` as ms after `ct` when the row has one. A record still in the earlier JSON form (first
 * byte `{`) is read as JSON. test/integration/row-codec.test.ts holds this reader to the Lua
 * writer.
 */
const ROW_PLACES = ['s', 'a', 'p', 'm', 'ct', 'dt', 'rt', 'pc', 'pb', 'v'] as const;
/** Meta's `pricing.category` values, in the Lua's order. */
export const ROW_PRICING_CODES = [
  'marketing',
  'utility',
  'authentication',
  'authentication_international',
  'service',
  'marketing_lite',
  'referral_conversion',
] as const;
const JSON_START = 0x7b;
/** A hex ID kept as `~` and the base64url of its bytes (packedHexId). */
const PACKED_HEX_ID = '~';
const PACKABLE_HEX_ID = /^(?:[0-9A-F]{6})+$/;

/**
 * msgpackr, loaded at the first row read rather than with this module: it takes about 10 ms to
 * load, and a command that reads no row (`campaign status`, `list`) must not pay for it. Times of
 * the ledger's clock are over 2^32: MessagePack's uint64, read as numbers (ms fit 2^53).
 */
let unpackr: Unpackr | undefined;
function rowUnpackr(): Unpackr {
  if (unpackr === undefined) {
    const { Unpackr: Reader } = createRequire(import.meta.url)('msgpackr') as typeof import('msgpackr');
    unpackr = new Reader({ int64AsType: 'number', mapsAsObjects: true });
  }
  return unpackr;
}

/**
 * What a row's `m` keeps of a hex ID: upper-case hex digits in a multiple of 6 (Meta's have 18)
 * as `~` and the base64url of their bytes (13 characters for 18), any other as it is.
 */
export function packedHexId(hex: string): string {
  return PACKABLE_HEX_ID.test(hex) ? `${PACKED_HEX_ID}${Buffer.from(hex, 'hex').toString('base64url')}` : hex;
}

/** A row's hex ID as `m` keeps it: packed (`~` and base64url) or as it is. */
export function unpackedHexId(m: string): string {
  return m.startsWith(PACKED_HEX_ID) ? Buffer.from(m.slice(1), 'base64url').toString('hex').toUpperCase() : m;
}

/** The record stored as `raw` (HGET …Buffer), or undefined when it is not a record of either form. */
export function decodeStoredRow(raw: Buffer): StoredRow | undefined {
  try {
    if (raw[0] !== JSON_START) {
      const list: unknown = rowUnpackr().unpack(raw);
      return Array.isArray(list) ? fromPlaces(list) : undefined;
    }
    const json: unknown = JSON.parse(raw.toString('utf8'));
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as StoredRow) : undefined;
  } catch {
    return undefined;
  }
}

function fromPlaces(list: readonly unknown[]): StoredRow {
  // A plain loop and one assign: a report reads every row (forEach and a loop over the offsets took 2.4 µs a row, this 0.45).
  const row: Record<string, unknown> = {};
  const placed = Math.min(list.length, ROW_PLACES.length);
  for (let place = 0; place < placed; place++) {
    const value = list[place];
    if (value !== false && value !== null && value !== undefined) row[ROW_PLACES[place] as string] = value;
  }
  const extra = list[ROW_PLACES.length];
  if (typeof extra === 'object' && extra !== null) Object.assign(row, extra);
  if (typeof row.s === 'number') row.s = ROW_STATUSES[row.s - 1];
  if (typeof row.p === 'number') row.p = `+${row.p}`;
  if (typeof row.pc === 'number') row.pc = ROW_PRICING_CODES[row.pc - 1];
  if (typeof row.m === 'string') row.m = unpackedHexId(row.m);
  const ct = row.ct;
  if (typeof ct === 'number') {
    if (typeof row.dt === 'number') row.dt += ct;
    if (typeof row.rt === 'number') row.rt += ct;
    if (typeof row.ft === 'number') row.ft += ct;
  }
  return row as unknown as StoredRow;
}
