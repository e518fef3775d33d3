import type { RedisClient } from '../../src/redis/key-scope.js';
import { campaignLedgerKeys, feedKeys, wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import { withLedgerCommands } from '../../src/redis/ledger/ledger-scripts.js';
import { LEDGER_TEST_NUMBER } from './ledger-fixtures.js';

/** What some of the ledger's keys hold, for tests that check what the interface does not show. */
export interface LedgerPeek {
  /** A campaign's backlog (the pending list): "row" for a row's first job, "row:k" for its job number k, in feed order. */
  backlog(campaignId: string, phoneNumberId?: string): Promise<string[]>;
  /** The job IDs in the number's window (fed and not done), oldest first. */
  windowJobIds(phoneNumberId?: string): Promise<string[]>;
  /** "campaign/row" of the row a message ID was sent for (the message-ID index), or null. */
  wamidOwner(wamid: string, phoneNumberId?: string): Promise<string | null>;
  /** How many message IDs the number's index holds (its small hashes and the one hash of older versions). */
  wamidCount(phoneNumberId?: string): Promise<number>;
}

/** A bucket of the message-ID index (src/redis/lua/includes/wamid-index.lua). */
export const WAMID_BUCKET = /:(w\d+:\d+|[0-9a-f]{4})$/;

export function ledgerPeek(redis: RedisClient, prefix: string): LedgerPeek {
  return {
    backlog: (campaignId, phoneNumberId = LEDGER_TEST_NUMBER) =>
      redis.lrange(campaignLedgerKeys(prefix, phoneNumberId, campaignId).pending, 0, -1),
    windowJobIds: (phoneNumberId = LEDGER_TEST_NUMBER) => redis.zrange(feedKeys(prefix, phoneNumberId).window, 0, -1),
    wamidOwner: async (wamid, phoneNumberId = LEDGER_TEST_NUMBER) => {
      const [where] = await withLedgerCommands(redis).cwWhereWamids(wamidsKey(prefix, phoneNumberId), wamid);
      return where === undefined || where === '' ? null : where;
    },
    wamidCount: async (phoneNumberId = LEDGER_TEST_NUMBER) => {
      const index = wamidsKey(prefix, phoneNumberId);
      let count = await redis.hlen(index);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${index}:*`, 'COUNT', 1000);
        cursor = next;
        // The buckets are named by their width and number, or by 4 hex digits at width 16; `:campaigns` maps the campaigns' handles.
        for (const key of keys) if (WAMID_BUCKET.test(key)) count += await redis.hlen(key);
      } while (cursor !== '0');
      return count;
    },
  };
}
