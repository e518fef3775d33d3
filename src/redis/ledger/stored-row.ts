import type { RowRecord, RowStatus } from '../../campaigns/campaign.js';
import { metaWamid } from '../../cloud-api/wamid-shape.js';

/** A row's record in the ledger: the Lua's fields, same names (src/redis/lua/README.md), read with decodeStoredRow (row-codec.ts). */
export interface StoredRow {
  /** phone */
  p: string;
  s: RowStatus;
  /** attempts */
  a?: number;
  /** the number of the job that owns the row; absent = 0, its first job */
  k?: number;
  /** wamid: as it came, or `m`, the hex ID of one in Meta's shape for `p`'s digits (wamid-compact.ts, includes/wamid-compact.lua) */
  w?: string;
  m?: string;
  /** error code, detail */
  c?: string;
  d?: string;
  /** template values, header link, message fingerprint */
  v?: string[];
  h?: string;
  f?: string;
  /** its send-window lane: the row waits in that lane's backlog (`pending:<z>`) */
  z?: number;
  /** status webhooks: first delivered, read and failed seen (ms) */
  dt?: number;
  rt?: number;
  ft?: number;
  /** while `sending`: the group job that claimed it (claim.lua), '' for a job of one row */
  g?: string;
  /** in-doubt rule: claim time (the ledger's clock, ms), confirm deadline (ms), 1 once resent by it */
  ct?: number;
  cu?: number;
  rs?: number;
  /** the user's reply to this row's message (button payload) and its time */
  q?: string;
  qt?: number;
  /** the user's answer to the Flow this row's message opened (response_json) and its time */
  j?: string;
  jt?: number;
  /** its tracked link (clicks/record-click.lua): the first click's time (the ledger's clock, ms) and the clicks so far */
  kt?: number;
  kn?: number;
  /** Meta's `pricing` of its status webhooks: category, and 1 when billable (apply-statuses.lua) */
  pc?: string;
  pb?: number;
}

/** The record as the report and `rows()` show it. */
export function toRecord(row: number, s: StoredRow): RowRecord {
  const record: RowRecord = { row, phone: s.p, status: s.s, attempts: s.a ?? 0 };
  const wamid = storedWamid(s);
  if (wamid !== undefined) record.wamid = wamid;
  if (s.c !== undefined) record.errorCode = s.c;
  if (s.d !== undefined) record.errorDetail = s.d;
  if (s.k !== undefined && s.k > 0) record.requeue = s.k;
  if (s.dt !== undefined) record.deliveredAt = s.dt;
  if (s.rt !== undefined) record.readAt = s.rt;
  if (s.q !== undefined) record.reply = s.q;
  if (s.j !== undefined) record.flowResponse = s.j;
  if (s.kt !== undefined) record.clickedAt = s.kt;
  if (s.kn !== undefined) record.clicks = s.kn;
  if (s.pc !== undefined) record.pricing = { category: s.pc, billable: s.pb === 1 };
  return record;
}

/** The row's message ID exactly as Meta gave it: kept as is, or rebuilt from the phone's digits and its hex ID. */
export function storedWamid(s: Pick<StoredRow, 'p' | 'w' | 'm'>): string | undefined {
  if (s.w !== undefined || s.m === undefined) return s.w;
  return metaWamid(s.p.startsWith('+') ? s.p.slice(1) : s.p, s.m);
}
