import type { Redis } from 'ioredis';
import {
  ROW_STATUSES,
  campaignDefinitionSchema,
  type CampaignCounts,
  type CampaignDefinition,
  type CampaignStatus,
  type RowRecord,
  type RowStatus,
} from '../campaigns/campaign.js';
import type { CampaignLedger, ClaimResult, IngestedRow, SettleResult, Settlement } from '../campaigns/ledger.js';
import { CLAIM, FINISH_INGEST, RECORD_INGESTED, SETTLE } from './ledger-scripts.js';

interface LedgerCommands {
  cwRecordIngested(campaign: string, rows: string, chunkJson: string): Promise<string[]>;
  cwFinishIngest(campaign: string, now: number): Promise<number>;
  cwClaim(campaign: string, rows: string, row: number): Promise<[string, string]>;
  cwSettle(campaign: string, rows: string, wamids: string, ...args: (string | number)[]): Promise<[string, number]>;
}

interface StoredRow {
  p: string;
  s: RowStatus;
  a?: number;
  w?: string;
  c?: string;
  d?: string;
}

/** The campaign ledger in Redis: a hash per campaign (definition + counters), a hash of rows. */
export class RedisLedger implements CampaignLedger {
  readonly #redis: Redis & LedgerCommands;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    defineScripts(redis);
    this.#redis = redis as Redis & LedgerCommands;
    this.#prefix = prefix;
  }

  #campaignKey(id: string): string {
    return `${this.#prefix}:campaign:${id}`;
  }
  #rowsKey(id: string): string {
    return `${this.#prefix}:campaign:${id}:rows`;
  }
  #wamidsKey(): string {
    return `${this.#prefix}:wamids`;
  }

  async createCampaign(definition: CampaignDefinition): Promise<void> {
    await this.#redis
      .multi()
      .hsetnx(this.#campaignKey(definition.id), 'definition', JSON.stringify(definition))
      .hsetnx(this.#campaignKey(definition.id), 'createdAt', String(definition.createdAt))
      .zadd(`${this.#prefix}:campaigns`, 'NX', definition.createdAt, definition.id)
      .exec();
  }

  async getCampaign(id: string): Promise<CampaignDefinition | undefined> {
    const json = await this.#redis.hget(this.#campaignKey(id), 'definition');
    return json === null ? undefined : campaignDefinitionSchema.parse(JSON.parse(json));
  }

  async recordIngested(campaignId: string, rows: readonly IngestedRow[]): Promise<number[]> {
    if (rows.length === 0) return [];
    const compact = rows.map((r) =>
      r.status === 'queued' ? [String(r.row), r.status, r.phone] : [String(r.row), r.status, r.phone, r.errorCode, r.errorDetail],
    );
    const needJob = await this.#redis.cwRecordIngested(this.#campaignKey(campaignId), this.#rowsKey(campaignId), JSON.stringify(compact));
    return needJob.map(Number);
  }

  async finishIngest(campaignId: string): Promise<boolean> {
    return (await this.#redis.cwFinishIngest(this.#campaignKey(campaignId), Date.now())) === 1;
  }

  async claim(campaignId: string, row: number): Promise<ClaimResult> {
    const [outcome, value] = await this.#redis.cwClaim(this.#campaignKey(campaignId), this.#rowsKey(campaignId), row);
    switch (outcome) {
      case 'claimed':
        return { outcome: 'claimed', attempt: Number(value) };
      case 'settled':
        return { outcome: 'settled', status: value as RowStatus };
      case 'in-doubt':
        return { outcome: 'in-doubt', attempts: Number(value) };
      default:
        throw new Error(`ledger has no row ${row} in campaign ${campaignId}`);
    }
  }

  async settle(campaignId: string, row: number, settlement: Settlement): Promise<SettleResult> {
    const wamid = settlement.status === 'sent' ? settlement.wamid : '';
    const code = settlement.status === 'sent' ? '' : settlement.errorCode;
    const detail = settlement.status === 'sent' ? '' : settlement.errorDetail;
    const [status, completed] = await this.#redis.cwSettle(
      this.#campaignKey(campaignId),
      this.#rowsKey(campaignId),
      this.#wamidsKey(),
      row,
      settlement.status,
      wamid,
      code,
      detail,
      campaignId,
      Date.now(),
    );
    if (status === 'missing') throw new Error(`ledger has no row ${row} in campaign ${campaignId}`);
    return { status: status as RowStatus, completedCampaign: completed === 1 };
  }

  async status(campaignId: string): Promise<CampaignStatus | undefined> {
    const fields = await this.#redis.hgetall(this.#campaignKey(campaignId));
    if (fields.definition === undefined) return undefined;
    const counts = { total: Number(fields.total ?? 0) } as CampaignCounts;
    for (const status of ROW_STATUSES) counts[status] = Number(fields[`n:${status}`] ?? 0);
    const finishedAt = fields.finishedAt === undefined ? undefined : Number(fields.finishedAt);
    return {
      id: campaignId,
      state: fields.ingestDone !== '1' ? 'ingesting' : finishedAt === undefined ? 'running' : 'completed',
      counts,
      createdAt: Number(fields.createdAt ?? 0),
      finishedAt,
    };
  }

  async *rows(campaignId: string, pageSize = 1000): AsyncIterable<RowRecord[]> {
    const total = Number((await this.#redis.hget(this.#campaignKey(campaignId), 'total')) ?? 0);
    for (let start = 1; start <= total; start += pageSize) {
      const rowNumbers = Array.from({ length: Math.min(pageSize, total - start + 1) }, (_, i) => String(start + i));
      const values = await this.#redis.hmget(this.#rowsKey(campaignId), ...rowNumbers);
      const page: RowRecord[] = [];
      values.forEach((json, i) => {
        if (json !== null) page.push(toRecord(start + i, JSON.parse(json) as StoredRow));
      });
      yield page;
    }
  }

  async listCampaigns(): Promise<string[]> {
    return this.#redis.zrange(`${this.#prefix}:campaigns`, 0, -1);
  }
}

function toRecord(row: number, s: StoredRow): RowRecord {
  const record: RowRecord = { row, phone: s.p, status: s.s, attempts: s.a ?? 0 };
  if (s.w !== undefined) record.wamid = s.w;
  if (s.c !== undefined) record.errorCode = s.c;
  if (s.d !== undefined) record.errorDetail = s.d;
  return record;
}

function defineScripts(redis: Redis): void {
  if ('cwClaim' in redis) return;
  redis.defineCommand('cwRecordIngested', { numberOfKeys: 2, lua: RECORD_INGESTED });
  redis.defineCommand('cwFinishIngest', { numberOfKeys: 1, lua: FINISH_INGEST });
  redis.defineCommand('cwClaim', { numberOfKeys: 2, lua: CLAIM });
  redis.defineCommand('cwSettle', { numberOfKeys: 3, lua: SETTLE });
}
