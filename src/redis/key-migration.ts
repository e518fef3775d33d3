import { Cluster } from 'ioredis';
import { AppError } from '../errors/app-error.js';
import { numberScope, sharedScope, type RedisClient } from './key-scope.js';
import { campaignIndexKey, campaignNumbersKey, phoneNumbersKey, wamidsKey } from './ledger-keys.js';

/**
 * `campaign migrate-keys`: moves what builds before 0.1.0 left in Redis to today's names, in
 * place, on a single Redis. Their keys are `<prefix>:<name>`; this layout puts every key of
 * a phone number under `<prefix>:{<number>}` (its queue, its campaigns' ledgers, its guard,
 * feed, opt-outs, service windows and message-ID index) and the metrics and webhook inbox
 * under `<prefix>:{<prefix>}`, so that each sits in one cluster slot. Each key is RENAMEd
 * (atomic, its TTL kept; RENAMENX, so a key already there is never overwritten), the one
 * global message-ID index is split by number, and the pacer's few-second keys are dropped.
 * Safe to run again: a run that stopped half-way continues; a finished one finds nothing left.
 */
export interface MigrationSummary {
  /** Keys renamed (or that would be, with dryRun). */
  moved: number;
  /** Message-ID index entries moved to their number's index. */
  wamids: number;
  /** Index entries of campaigns no longer in the ledger (dropped). */
  orphanWamids: number;
  /** Campaigns entered in the campaign → number index. */
  campaigns: number;
  /** Keys whose new name already exists: left as they are (named, for the operator). */
  conflicts: string[];
  /** Old keys this version does not know: left as they are. */
  unknown: string[];
  /** Pacer keys dropped (they live a few seconds). */
  dropped: number;
}

/** Keys a version before the cluster layout names, by pattern (P = the prefix). */
const PER_NUMBER = /^(sent|sent-at|confirm|status-seen|optouts|optout-prefs):(\d+)$/;
const FEED = /^feed:(\d+):(campaigns|window)$/;
const SERVICE_WINDOW = /^service-window:(\d+):(\d+)$/;
const QUEUE = /^send-(\d+):(.+)$/;
const PACER = /^pacer:(\d+):(slot|sent)$/;
const CAMPAIGN = /^campaign:([A-Za-z][A-Za-z0-9_-]{0,63})(:(?:rows|pending|pending:\d+|lanes|recent|requeue|payloads))?$/;
const SHARED = /^(metrics|webhooks):(.+)$/;
const DROP = Symbol('drop');
/** Names that keep their place: the indexes, the template cache, the dashboard's key. */
const UNCHANGED = /^(campaigns|campaign-numbers|numbers|templates:.*|dashboard:.*|retention-lock)$/;

export async function migrateKeyLayout(redis: RedisClient, prefix: string, options: { dryRun?: boolean } = {}): Promise<MigrationSummary> {
  if (redis instanceof Cluster) {
    throw new AppError(
      'OPTION_INVALID',
      'migrate-keys runs on the single Redis that holds the old layout (unset REDIS_CLUSTER_NODES); move the ' +
        'migrated data to the cluster afterwards (see docs/scale-out.md, "Moving to a cluster").',
    );
  }
  const dryRun = options.dryRun === true;
  const summary: MigrationSummary = { moved: 0, wamids: 0, orphanWamids: 0, campaigns: 0, conflicts: [], unknown: [], dropped: 0 };
  const keys = (await scanKeys(redis, `${prefix}:*`)).sort();
  const numberOf = await campaignNumbers(redis, prefix, keys);

  for (const [id, number] of numberOf) {
    if ((await redis.hget(campaignNumbersKey(prefix), id)) !== null) continue;
    summary.campaigns++;
    if (!dryRun) await redis.hsetnx(campaignNumbersKey(prefix), id, number);
  }
  if (!dryRun && numberOf.size > 0) await redis.sadd(phoneNumbersKey(prefix), ...new Set(numberOf.values()));

  for (const key of keys) {
    const name = key.slice(prefix.length + 1);
    if (name.startsWith('{') || UNCHANGED.test(name) || name === 'wamids') continue;
    const target = newName(prefix, name, numberOf);
    if (target === DROP) {
      summary.dropped++;
      if (!dryRun) await redis.unlink(key);
    } else if (target === undefined) {
      summary.unknown.push(key);
    } else if (dryRun) {
      if ((await redis.exists(target)) === 1) summary.conflicts.push(key);
      else summary.moved++;
    } else if ((await redis.renamenx(key, target)) === 1) {
      summary.moved++;
    } else {
      summary.conflicts.push(key);
    }
  }
  await splitWamids(redis, prefix, numberOf, dryRun, summary);
  return summary;
}

/** Whether keys of the layout before the cluster one are here (a campaign the number index does not know). */
export async function hasOldLayout(redis: RedisClient, prefix: string): Promise<boolean> {
  const [listed, indexed] = await Promise.all([redis.zcard(campaignIndexKey(prefix)), redis.hlen(campaignNumbersKey(prefix))]);
  return listed > indexed;
}

/** The key's name in the cluster layout; DROP for the pacer's short-lived keys; undefined when unknown. */
function newName(prefix: string, name: string, numberOf: ReadonlyMap<string, string>): string | typeof DROP | undefined {
  let match: RegExpExecArray | null;
  if ((match = PER_NUMBER.exec(name)) !== null) return `${numberScope(prefix, match[2] ?? '')}:${name}`;
  if ((match = FEED.exec(name)) !== null) return `${numberScope(prefix, match[1] ?? '')}:${name}`;
  if ((match = SERVICE_WINDOW.exec(name)) !== null) return `${numberScope(prefix, match[1] ?? '')}:${name}`;
  if ((match = QUEUE.exec(name)) !== null) return `${numberScope(prefix, match[1] ?? '')}:${name}`;
  if (PACER.test(name)) return DROP;
  if ((match = CAMPAIGN.exec(name)) !== null) {
    const number = numberOf.get(match[1] ?? '');
    return number === undefined ? undefined : `${numberScope(prefix, number)}:${name}`;
  }
  if (SHARED.test(name)) return `${sharedScope(prefix)}:${name}`;
  return undefined;
}

/** Campaign ID → number, from each old campaign hash's definition (and the index, for those already moved). */
async function campaignNumbers(redis: RedisClient, prefix: string, keys: readonly string[]): Promise<Map<string, string>> {
  const numbers = new Map<string, string>(Object.entries(await redis.hgetall(campaignNumbersKey(prefix))));
  for (const key of keys) {
    const match = /^campaign:([A-Za-z][A-Za-z0-9_-]{0,63})$/.exec(key.slice(prefix.length + 1));
    if (match === null) continue;
    const definition = await redis.hget(key, 'definition');
    const number = definition === null ? undefined : (JSON.parse(definition) as { phoneNumberId?: unknown }).phoneNumberId;
    if (typeof number === 'string' && /^\d+$/.test(number)) numbers.set(match[1] ?? '', number);
  }
  return numbers;
}

/** The one message-ID index (wamid → "campaign/row") becomes one per number; its entries move in pages. */
async function splitWamids(
  redis: RedisClient,
  prefix: string,
  numberOf: ReadonlyMap<string, string>,
  dryRun: boolean,
  summary: MigrationSummary,
): Promise<void> {
  const old = `${prefix}:wamids`;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(old, cursor, 'COUNT', 1000);
    cursor = next;
    const byNumber = new Map<string, string[]>();
    const moved: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const wamid = flat[i] ?? '';
      const where = flat[i + 1] ?? '';
      moved.push(wamid);
      const number = numberOf.get(where.split('/')[0] ?? '');
      if (number === undefined) {
        summary.orphanWamids++;
        continue;
      }
      const entries = byNumber.get(number) ?? [];
      entries.push(wamid, where);
      byNumber.set(number, entries);
      summary.wamids++;
    }
    if (dryRun) continue;
    // Written first, removed after: a run stopped between the two finds the entries again.
    for (const [number, entries] of byNumber) await redis.hset(wamidsKey(prefix, number), ...entries);
    if (moved.length > 0) await redis.hdel(old, ...moved);
  } while (cursor !== '0');
}

/** The send queues of the earlier layout (`<prefix>:send-<number>`): each number, and the name and prefix BullMQ opens it by. */
export async function oldLayoutQueues(redis: RedisClient, prefix: string): Promise<{ number: string; name: string; prefix: string }[]> {
  const numbers = new Set<string>();
  for (const key of await scanKeys(redis, `${prefix}:send-*:meta`)) {
    const number = /:send-(\d+):meta$/.exec(key)?.[1];
    if (number !== undefined) numbers.add(number);
  }
  return [...numbers].map((number) => ({ number, name: `send-${number}`, prefix }));
}

/** Every key matching `pattern` on a single Redis (SCAN, in pages). */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await (redis as Exclude<RedisClient, Cluster>).scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  return keys;
}
