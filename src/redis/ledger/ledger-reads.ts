import {
  campaignDefinitionSchema,
  ROW_STATUSES,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignStatus,
  type RowRecord,
} from '../../campaigns/campaign.js';
import type { LaneBacklog, ReportLedger } from '../../campaigns/ledger.js';
import type { CampaignCounters, CampaignCountersReader } from '../../campaigns/report/campaign-counters.js';
import {
  CODED_STATUSES,
  ERROR_SCAN_CAP,
  type CodeCount,
  type CodedStatus,
  type ErrorCodeCount,
  type ErrorCodeLedger,
} from '../../campaigns/report/error-codes.js';
import { lanesOf, type LedgerContext } from './ledger-context.js';
import { campaignIndexKey, campaignLedgerKeys, laneBacklogKey, phoneNumbersKey } from './ledger-keys.js';
import { execPipeline } from '../redis-connection.js';
import { AppError } from '../../errors/app-error.js';
import { decodeStoredRow } from './row-codec.js';
import { storedRowRange } from './row-chunks.js';

/** Rows read a call while counting error codes. */
const ERROR_SCAN_PAGE = 1000;
import { toRecord, type StoredRow } from './stored-row.js';

/**
 * The campaign hash's fields a status is read from (never `definition`, its largest): times,
 * flags, and the counters `n:<label>` its scripts move with each row.
 */
export const STATUS_FIELDS = [
  'createdAt',
  'priority',
  'total',
  ...[...ROW_STATUSES, 'delivered', 'read', 'replied', 'clicked'].map((label) => `n:${label}`),
  'ingestDone',
  'finishedAt',
  'paused',
  'pausedReason',
  'pausedAt',
  'ingestInterrupted',
  'purgedAt',
  'cancelled',
  'cancelReason',
  'startsAt',
  'startDeadline',
  'expiresAt',
  'startedAt',
  'window',
];

/** HMGET's answer for STATUS_FIELDS as a lookup by field; undefined when the campaign has no hash (createdAt is written with it). */
export function statusFields(values: readonly (string | null)[]): Record<string, string | undefined> | undefined {
  const fields = Object.fromEntries(STATUS_FIELDS.map((name, i) => [name, values[i] ?? undefined]));
  return fields.createdAt === undefined ? undefined : fields;
}

/**
 * A campaign's status from its fields. `now` (the ledger's clock) decides whether a start
 * still lies ahead: only asked for when the campaign has one and has not started.
 */
export async function statusOf(
  campaignId: string,
  fields: Record<string, string | undefined>,
  now: () => Promise<number>,
): Promise<CampaignStatus> {
  const ms = (field: string | undefined) => (field === undefined ? undefined : Number(field));
  const counts = { total: Number(fields.total ?? 0) } as CampaignCounts;
  for (const label of [...ROW_STATUSES, 'delivered', 'read', 'replied'] as const) counts[label] = Number(fields[`n:${label}`] ?? 0);
  // Set to 0 when its first links are recorded: absent, the campaign does not track clicks.
  if (fields['n:clicked'] !== undefined) counts.clicked = Number(fields['n:clicked']);
  const finishedAt = ms(fields.finishedAt);
  const paused = fields.paused === '1';
  const startsAt = ms(fields.startsAt);
  const scheduled = startsAt !== undefined && fields.startedAt === undefined && finishedAt === undefined && startsAt > (await now());
  return {
    id: campaignId,
    priority: fields.priority === '0' ? 'high' : fields.priority === '2' ? 'low' : 'normal',
    state:
      fields.cancelled === '1'
        ? 'cancelled'
        : paused
          ? 'paused'
          : scheduled
            ? 'scheduled'
            : fields.ingestDone !== '1'
              ? 'ingesting'
              : finishedAt === undefined
                ? 'running'
                : 'completed',
    counts,
    createdAt: Number(fields.createdAt ?? 0),
    finishedAt,
    pausedReason: paused ? fields.pausedReason : undefined,
    pausedAt: paused ? ms(fields.pausedAt) : undefined,
    ingestInterrupted: fields.ingestInterrupted !== undefined,
    purgedAt: ms(fields.purgedAt),
    startsAt,
    startDeadline: ms(fields.startDeadline),
    expiresAt: ms(fields.expiresAt),
    startedAt: ms(fields.startedAt),
    cancelReason: fields.cancelReason,
  };
}

const CODED = new Set<string>(CODED_STATUSES);

/**
 * Reading campaigns back: definitions, states and counts (one campaign's, or every campaign's in one
 * pipeline per number), rows in pages, the lists of campaigns and numbers, lane backlogs, and
 * errors by code (1,000 rows a call, in row order, up to a cap).
 */
export class LedgerReads implements ReportLedger, ErrorCodeLedger, CampaignCountersReader {
  constructor(private readonly context: LedgerContext) {}

  async getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    const json = await this.context.redis.hget((await this.context.keys(id)).campaign, 'definition');
    return json === null ? undefined : campaignDefinitionSchema.parse(JSON.parse(json));
  }

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const fields = statusFields(await this.context.redis.hmget((await this.context.keys(campaignId)).campaign, ...STATUS_FIELDS));
    return fields === undefined ? undefined : statusOf(campaignId, fields, () => this.context.clock.now());
  }

  async *rows(campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
    for await (const page of storedPages(this.context, campaignId, pageSize)) yield page.map(({ record }) => record);
  }

  /** Rows with what their message was filled with (values, header link) and when each was claimed and failed: `campaign retarget`. */
  async *rowMessages(campaignId: string, pageSize = 1000): AsyncIterable<RowMessage[]> {
    for await (const page of storedPages(this.context, campaignId, pageSize)) {
      yield page.map(({ record, stored }) => ({
        ...record,
        values: stored.v ?? [],
        ...(stored.h === undefined ? {} : { headerLink: stored.h }),
        ...(stored.ct === undefined ? {} : { sentAt: stored.ct }),
        ...(stored.ft === undefined ? {} : { failedAt: stored.ft }),
      }));
    }
  }

  async listCampaigns(): Promise<string[]> {
    return this.context.redis.zrange(campaignIndexKey(this.context.prefix), 0, -1);
  }

  async phoneNumbers(): Promise<string[]> {
    return (await this.context.redis.smembers(phoneNumbersKey(this.context.prefix))).sort();
  }

  async laneBacklogs(campaignId: string): Promise<LaneBacklog[]> {
    const { redis } = this.context;
    const keys = await this.context.keys(campaignId);
    const lanes = lanesOf(await redis.hgetall(keys.lanes));
    if (lanes.length === 0) return [];
    // One campaign's keys: one slot, so one pipeline even on a cluster.
    const pipeline = redis.pipeline();
    lanes.forEach((_, lane) => pipeline.llen(laneBacklogKey(keys.pending, lane)));
    const lengths = (await pipeline.exec()) ?? [];
    return lanes.map((zones, lane) => ({ lane, zones, pending: Number(lengths[lane]?.[1] ?? 0) }));
  }

  async errorCodes(campaignId: string, cap = ERROR_SCAN_CAP): Promise<ErrorCodeCount> {
    const { redis } = this.context;
    const keys = await this.context.keys(campaignId);
    const total = Number((await redis.hget(keys.campaign, 'total')) ?? 0);
    const counts = new Map<string, CodeCount>();
    let scanned = 0;
    let start = 1;
    for (; start <= total && scanned < cap; start += ERROR_SCAN_PAGE) {
      for (const stored of await storedRowRange(redis, keys.rows, start, Math.min(start + ERROR_SCAN_PAGE - 1, total))) {
        if (stored === null) continue;
        scanned++;
        const row = codedRow(stored);
        if (row === undefined) continue;
        const key = `${row.status}\u0000${row.code}`;
        const entry = counts.get(key);
        if (entry === undefined) counts.set(key, { status: row.status, code: row.code, rows: 1, example: row.detail });
        else entry.rows++;
      }
    }
    const codes = [...counts.values()].sort((a, b) => b.rows - a.rows || a.status.localeCompare(b.status) || a.code.localeCompare(b.code));
    return { codes, scanned, complete: start > total };
  }

  async campaignCounters(): Promise<CampaignCounters[]> {
    const { redis, prefix, clock } = this.context;
    const ids = await redis.zrange(campaignIndexKey(prefix), 0, -1);
    const numbers = await this.context.numbersOf(ids);
    const byNumber = new Map<string, string[]>();
    for (const [id, number] of numbers) byNumber.set(number, [...(byNumber.get(number) ?? []), id]);
    const read = new Map<string, (string | null)[]>();
    await Promise.all(
      [...byNumber].map(async ([number, group]) => {
        const pipeline = redis.pipeline();
        for (const id of group) pipeline.hmget(campaignLedgerKeys(prefix, number, id).campaign, ...STATUS_FIELDS);
        const replies = await execPipeline<(string | null)[][]>(pipeline);
        group.forEach((id, i) => read.set(id, replies[i] ?? []));
      }),
    );
    let now: Promise<number> | undefined;
    const counters: CampaignCounters[] = [];
    for (const id of ids) {
      const fields = statusFields(read.get(id) ?? []);
      if (fields === undefined) continue;
      const status = await statusOf(id, fields, () => (now ??= clock.now()));
      counters.push({ status, phoneNumberId: numbers.get(id) ?? '', windowed: fields.window === '1' });
    }
    return counters;
  }
}

/** A stored row's status, code and detail when it is a coded one (StoredRow's `s`, `c`, `d`). */
function codedRow(raw: Buffer): { status: CodedStatus; code: string; detail: string } | undefined {
  const value = decodeStoredRow(raw);
  if (value === undefined) return undefined;
  const { s, c, d } = value as { [K in keyof Pick<StoredRow, 's' | 'c' | 'd'>]?: unknown };
  if (typeof s !== 'string' || !CODED.has(s)) return undefined;
  return { status: s as CodedStatus, code: typeof c === 'string' && c !== '' ? c : '(none)', detail: typeof d === 'string' ? d : '' };
}

/** A row's record with its message's values, header link, claim time (ms) and first failure seen (ms). */
export type RowMessage = RowRecord & { values: string[]; headerLink?: string; sentAt?: number; failedAt?: number };

/** A campaign's stored rows in pages, by row number, each as stored and as its record. */
async function* storedPages(
  context: LedgerContext,
  campaignId: string,
  pageSize: number,
): AsyncIterable<{ record: RowRecord; stored: StoredRow }[]> {
  const { redis } = context;
  const keys = await context.keys(campaignId);
  const [totalField, cancelledField, expiredField] = await redis.hmget(keys.campaign, 'total', 'cancelled', 'expired');
  const total = Number(totalField ?? 0);
  // Cancel and expiry move the backlog's rows to `cancelled` / `expired` as a block, without
  // rewriting each record; every row still queued in such a campaign is one of them or ends
  // so at its claim.
  const endedAs = cancelledField === '1' ? 'cancelled' : expiredField === '1' ? 'expired' : undefined;
  for (let start = 1; start <= total; start += pageSize) {
    const values = await storedRowRange(redis, keys.rows, start, Math.min(start + pageSize - 1, total));
    const page: { record: RowRecord; stored: StoredRow }[] = [];
    values.forEach((raw, i) => {
      if (raw === null) return;
      const stored = decodeStoredRow(raw);
      // Only the ledger's scripts write rows: one that reads as neither of their forms is damage, said loudly, not a row left out.
      if (stored === undefined) {
        throw new AppError('INTERNAL_ERROR', `row ${start + i} of campaign ${campaignId} holds a record the ledger cannot read`);
      }
      const record = toRecord(start + i, stored);
      if (endedAs !== undefined && record.status === 'queued') record.status = endedAs;
      page.push({ record, stored });
    });
    yield page;
  }
}
