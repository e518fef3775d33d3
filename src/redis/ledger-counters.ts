import { ROW_STATUSES } from '../campaigns/campaign.js';
import type { CampaignCounters, CampaignCountersReader, CounterLabel } from '../campaigns/report/campaign-counters.js';
import type { LedgerContext } from './ledger-context.js';
import { campaignIndexKey, campaignLedgerKeys } from './ledger-keys.js';
import { exec } from './redis-metrics-store.js';

const LABELS: readonly CounterLabel[] = [...ROW_STATUSES, 'delivered', 'read'];

/** The campaign hash's fields a read of counters takes (never its rows): the counters `n:<label>`, times and flags. */
const FIELDS: readonly string[] = ['createdAt', 'total', ...LABELS.map((label) => `n:${label}`), 'startedAt', 'finishedAt', 'paused', 'cancelled', 'startsAt', 'expiresAt', 'window'];

/**
 * Every campaign's counters in a few round trips, each in one cluster slot: the campaign
 * index, the numbers of campaigns not seen before, then one pipeline per phone number of its
 * campaigns' hashes (HMGET of FIELDS).
 */
export class LedgerCounters implements CampaignCountersReader {
  constructor(private readonly context: LedgerContext) {}

  async campaignCounters(): Promise<CampaignCounters[]> {
    const { redis, prefix } = this.context;
    const ids = await redis.zrange(campaignIndexKey(prefix), 0, -1);
    const numbers = await this.context.numbersOf(ids);
    const byNumber = new Map<string, string[]>();
    for (const id of ids) {
      const number = numbers.get(id);
      if (number === undefined) continue;
      const group = byNumber.get(number);
      if (group === undefined) byNumber.set(number, [id]);
      else group.push(id);
    }
    const read = new Map<string, (string | null)[]>();
    await Promise.all(
      [...byNumber].map(async ([number, group]) => {
        const pipeline = redis.pipeline();
        for (const id of group) pipeline.hmget(campaignLedgerKeys(prefix, number, id).campaign, ...FIELDS);
        const replies = await exec<(string | null)[][]>(pipeline);
        group.forEach((id, i) => read.set(id, replies[i] ?? []));
      }),
    );
    const counters: CampaignCounters[] = [];
    for (const id of ids) {
      const values = read.get(id);
      const parsed = values === undefined ? undefined : countersOf(id, numbers.get(id) ?? '', values);
      if (parsed !== undefined) counters.push(parsed);
    }
    return counters;
  }
}

/** HMGET's answer (FIELDS in order) as counters; undefined when the campaign has no hash (every hash has createdAt from its creation). */
function countersOf(id: string, phoneNumberId: string, values: readonly (string | null)[]): CampaignCounters | undefined {
  const field = (name: string): string | null => values[FIELDS.indexOf(name)] ?? null;
  const number = (name: string): number => {
    const n = Number(field(name) ?? 0);
    return Number.isFinite(n) ? n : 0;
  };
  const ms = (name: string): number | undefined => (field(name) === null ? undefined : number(name));
  if (field('createdAt') === null) return undefined;
  const rows = Object.fromEntries(LABELS.map((label) => [label, number(`n:${label}`)])) as Record<CounterLabel, number>;
  return {
    id,
    phoneNumberId,
    createdAt: number('createdAt'),
    total: number('total'),
    rows,
    startedAt: ms('startedAt'),
    finishedAt: ms('finishedAt'),
    startsAt: ms('startsAt'),
    expiresAt: ms('expiresAt'),
    paused: field('paused') === '1',
    cancelled: field('cancelled') === '1',
    windowed: field('window') === '1',
  };
}
