import { ROW_STATUSES, type CampaignCounts, type CampaignStatus, type RowRecord } from '../campaigns/campaign.js';
import type { LaneBacklog, ReportLedger } from '../campaigns/ledger.js';
import { lanesOf, type LedgerContext } from './ledger-context.js';
import { campaignIndexKey, laneBacklogKey, phoneNumbersKey } from './ledger-keys.js';
import { toRecord, type StoredRow } from './stored-row.js';

/** Reading campaigns back: states and counts (the campaign hash), rows (the rows hash), the lists of campaigns and numbers, lane backlogs. */
export class LedgerReads implements Omit<ReportLedger, 'getCampaign'> {
  constructor(private readonly context: LedgerContext) {}

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const fields = await this.context.redis.hgetall((await this.context.keys(campaignId)).campaign);
    if (fields.definition === undefined) return undefined;
    const counts = { total: Number(fields.total ?? 0), delivered: Number(fields['n:delivered'] ?? 0), read: Number(fields['n:read'] ?? 0) } as CampaignCounts;
    for (const status of ROW_STATUSES) counts[status] = Number(fields[`n:${status}`] ?? 0);
    const finishedAt = fields.finishedAt === undefined ? undefined : Number(fields.finishedAt);
    const paused = fields.paused === '1';
    const ms = (field: string | undefined) => (field === undefined ? undefined : Number(field));
    const startsAt = ms(fields.startsAt);
    const scheduled = startsAt !== undefined && fields.startedAt === undefined && finishedAt === undefined && startsAt > (await this.context.clock.now());
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
      pausedAt: paused && fields.pausedAt !== undefined ? Number(fields.pausedAt) : undefined,
      ingestInterrupted: fields.ingestInterrupted !== undefined,
      purgedAt: fields.purgedAt === undefined ? undefined : Number(fields.purgedAt),
      startsAt,
      startDeadline: ms(fields.startDeadline),
      expiresAt: ms(fields.expiresAt),
      startedAt: ms(fields.startedAt),
      cancelReason: fields.cancelReason,
    };
  }

  async *rows(campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
    const { redis } = this.context;
    const keys = await this.context.keys(campaignId);
    const [totalField, cancelledField, expiredField] = await redis.hmget(keys.campaign, 'total', 'cancelled', 'expired');
    const total = Number(totalField ?? 0);
    // Cancel and expiry move the backlog's rows to `cancelled` / `expired` as a block, without
    // rewriting each record; every row still queued in such a campaign is one of them or ends
    // so at its claim.
    const endedAs = cancelledField === '1' ? 'cancelled' : expiredField === '1' ? 'expired' : undefined;
    for (let start = 1; start <= total; start += pageSize) {
      const rowNumbers = Array.from({ length: Math.min(pageSize, total - start + 1) }, (_, i) => String(start + i));
      const values = await redis.hmget(keys.rows, ...rowNumbers);
      const page: RowRecord[] = [];
      values.forEach((json, i) => {
        if (json === null) return;
        const record = toRecord(start + i, JSON.parse(json) as StoredRow);
        if (endedAs !== undefined && record.status === 'queued') record.status = endedAs;
        page.push(record);
      });
      yield page;
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
}
