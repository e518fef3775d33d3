import type { CampaignHistory, HistoryEntry } from '../../campaigns/history/campaign-history.js';
import { historyEntryOf } from '../../campaigns/history/campaign-history.js';
import type { RedisClient } from '../key-scope.js';
import { campaignLedgerKeys, campaignNumbersKey } from '../ledger/ledger-keys.js';
import { campaignNotFound } from '../../campaigns/campaign-not-found.js';

/** Entries kept per campaign: the newest; older ones fall off as new ones come. */
export const HISTORY_CAP = 500;

/**
 * A campaign's history in Redis: a list beside its hash (`<scope>:campaign:<id>:history`, in
 * its number's cluster slot), newest first, one JSON entry each, trimmed to HISTORY_CAP in
 * the same transaction that adds one. Purge deletes it with the campaign's rows (and so does
 * retention, which purges); an entry for a campaign already purged is not written, so the
 * list never comes back after its purge.
 */
export class RedisCampaignHistory implements CampaignHistory {
  /** Campaign ID → phone number ID: fixed at creation, so read once per process. */
  readonly #numbers = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** CAMPAIGN_NOT_FOUND for a campaign this prefix does not hold. */
  async record(campaignId: string, entry: HistoryEntry): Promise<void> {
    const keys = await this.#keys(campaignId);
    if (keys === undefined) throw campaignNotFound(campaignId);
    const [definition, purgedAt] = await this.redis.hmget(keys.campaign, 'definition', 'purgedAt');
    if (definition === null) throw campaignNotFound(campaignId);
    if (purgedAt !== null) return;
    const stored: HistoryEntry = { at: entry.at, actor: { kind: entry.actor.kind, name: entry.actor.name }, action: entry.action };
    if (entry.detail !== undefined) stored.detail = entry.detail;
    await this.redis
      .multi()
      .lpush(keys.history, JSON.stringify(stored))
      .ltrim(keys.history, 0, HISTORY_CAP - 1)
      .exec();
  }

  async list(campaignId: string): Promise<HistoryEntry[]> {
    const keys = await this.#keys(campaignId);
    if (keys === undefined) return [];
    const entries: HistoryEntry[] = [];
    for (const json of await this.redis.lrange(keys.history, 0, -1)) {
      const entry = historyEntryOf(parse(json));
      if (entry !== undefined) entries.push(entry);
    }
    return entries;
  }

  async #keys(campaignId: string): Promise<ReturnType<typeof campaignLedgerKeys> | undefined> {
    let number = this.#numbers.get(campaignId);
    if (number === undefined) {
      const read = await this.redis.hget(campaignNumbersKey(this.prefix), campaignId);
      if (read === null) return undefined;
      number = read;
      this.#numbers.set(campaignId, number);
    }
    return campaignLedgerKeys(this.prefix, number, campaignId);
  }
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    // An entry written by hand or damaged: it alone is left out.
    return undefined;
  }
}
