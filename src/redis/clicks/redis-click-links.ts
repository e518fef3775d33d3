import type { ClickLink, ClickLinks, RecordedClick } from '../../clicks/click-links.js';
import { isClickToken } from '../../clicks/click-token.js';
import type { RedisClient } from '../key-scope.js';
import { LedgerClock, type LedgerClockSetting } from '../ledger/ledger-clock.js';
import { campaignLedgerKeys } from '../ledger/ledger-keys.js';
import { loadLuaCommand } from '../lua-scripts.js';
import { campaignClicksKey, clickIndexKey, recordClickKeys } from './click-keys.js';

interface ClickCommands {
  cwRecordClick(campaign: string, rows: string, links: string, clock: string, token: string): Promise<(string | number)[]>;
}

/** Tokens forgotten per step of a purge: each step one HSCAN page and one HDEL, short for Redis. */
const PAGE = 500;

/**
 * Tracked links in Redis (src/redis/clicks/click-keys.ts): the global index token → campaign, and
 * each campaign's token → row and destination in its own slot, where src/redis/lua/clicks/record-click.lua
 * records a click on the row in one step.
 */
export class RedisClickLinks implements ClickLinks {
  readonly #redis: RedisClient & ClickCommands;
  readonly #prefix: string;
  readonly #clock: LedgerClock;

  constructor(redis: RedisClient, prefix: string, clock?: LedgerClockSetting) {
    if (!('cwRecordClick' in redis)) redis.defineCommand('cwRecordClick', loadLuaCommand('clicks/record-click'));
    this.#redis = redis as RedisClient & ClickCommands;
    this.#prefix = prefix;
    this.#clock = new LedgerClock(redis, clock);
  }

  async record(phoneNumberId: string, campaignId: string, links: readonly ClickLink[]): Promise<void> {
    if (links.length === 0) return;
    const own = links.flatMap((link) => [link.token, `${link.row}/${link.url}`]);
    const owner = `${phoneNumberId}/${campaignId}`;
    // The campaign's side first: a token in the index always finds its row, and one the index lacks is dropped with the campaign.
    // `n:clicked` starts at 0: a campaign that tracks clicks shows its count, 0 included; one that does not shows none.
    await this.#redis
      .multi()
      .hset(campaignClicksKey(this.#prefix, phoneNumberId, campaignId), ...own)
      .hsetnx(campaignLedgerKeys(this.#prefix, phoneNumberId, campaignId).campaign, 'n:clicked', '0')
      .exec();
    await this.#redis.hset(clickIndexKey(this.#prefix), ...links.flatMap((link) => [link.token, owner]));
  }

  async click(token: string): Promise<RecordedClick | undefined> {
    if (!isClickToken(token)) return undefined;
    const owner = await this.#redis.hget(clickIndexKey(this.#prefix), token);
    const at = owner?.indexOf('/') ?? -1;
    if (owner === null || owner === undefined || at < 0) return undefined;
    const keys = recordClickKeys(this.#prefix, owner.slice(0, at), owner.slice(at + 1));
    const answer = await this.#redis.cwRecordClick(...keys, this.#clock.arg(), token);
    const [url, first, clicks] = answer;
    if (typeof url !== 'string') return undefined;
    return { url, first: Number(first) === 1, clicks: Number(clicks) };
  }

  async destinations(phoneNumberId: string, campaignId: string, tokens: readonly string[]): Promise<(string | undefined)[]> {
    if (tokens.length === 0) return [];
    const links = await this.#redis.hmget(campaignClicksKey(this.#prefix, phoneNumberId, campaignId), ...tokens);
    return links.map((link) => {
      const at = link?.indexOf('/') ?? -1;
      return link === null || link === undefined || at < 0 ? undefined : link.slice(at + 1);
    });
  }

  async forget(phoneNumberId: string, campaignId: string): Promise<number> {
    const key = campaignClicksKey(this.#prefix, phoneNumberId, campaignId);
    let forgotten = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.#redis.hscan(key, cursor, 'COUNT', PAGE);
      cursor = next;
      const tokens = flat.filter((_, i) => i % 2 === 0);
      if (tokens.length > 0) forgotten += await this.#redis.hdel(clickIndexKey(this.#prefix), ...tokens);
    } while (cursor !== '0');
    await this.#redis.unlink(key);
    return forgotten;
  }
}
