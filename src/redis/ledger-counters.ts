import type { CampaignCounters, CampaignCountersReader } from '../campaigns/report/campaign-counters.js';
import type { LedgerContext } from './ledger-context.js';
import { campaignIndexKey, campaignLedgerKeys } from './ledger-keys.js';
import { STATUS_FIELDS, statusFields, statusOf } from './ledger-reads.js';
import { exec } from './redis-metrics-store.js';

/**
 * Every campaign's status in a few round trips, each in one cluster slot: the campaign index,
 * the numbers of campaigns not seen before, then one pipeline per phone number of its
 * campaigns' status fields.
 */
export class LedgerCounters implements CampaignCountersReader {
  constructor(private readonly context: LedgerContext) {}

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
        const replies = await exec<(string | null)[][]>(pipeline);
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
