import type { RedisClient } from '../key-scope.js';
import { campaignIndexKey, campaignLedgerKeys, campaignNumbersKey } from '../ledger/ledger-keys.js';
import { hooksRegistryKey } from './event-keys.js';

/** Campaigns whose flag is set per step: a million campaigns in steps of commands sent together. */
const STEP = 500;

/**
 * A campaign's scripts emit events only while its hash says `events` = '1'
 * (src/redis/lua/includes/events.lua), so a product without hooks writes none. A campaign gets
 * the flag at creation when a hook exists (LedgerIngest.createCampaign checks after indexing the
 * campaign), and every campaign gets it when a hook is added (after the hook is registered):
 * whichever of the two runs second sees the other's write, so no campaign is missed.
 */
export async function markCampaignsForEvents(redis: RedisClient, prefix: string, on: boolean): Promise<number> {
  const numbers = await redis.hgetall(campaignNumbersKey(prefix));
  const ids = await redis.zrange(campaignIndexKey(prefix), 0, -1);
  let marked = 0;
  for (let start = 0; start < ids.length; start += STEP) {
    // Separate commands, not one pipeline: on a cluster the campaigns' keys are on different nodes.
    const steps: Promise<unknown>[] = [];
    for (const id of ids.slice(start, start + STEP)) {
      const number = numbers[id];
      if (number === undefined) continue;
      const key = campaignLedgerKeys(prefix, number, id).campaign;
      // Only a campaign that exists: HSET on a purged one would leave a hash with one field.
      steps.push(on ? redis.eval(SET_IF_EXISTS, 1, key) : redis.hdel(key, 'events'));
      marked += 1;
    }
    await Promise.all(steps);
  }
  return marked;
}

/** Whether any outbound hook exists: a new campaign emits events only then. */
export async function eventsWanted(redis: RedisClient, prefix: string): Promise<boolean> {
  return (await redis.exists(hooksRegistryKey(prefix))) === 1;
}

const SET_IF_EXISTS = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'events', '1') end return 0";
